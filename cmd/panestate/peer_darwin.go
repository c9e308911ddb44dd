package main

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerUID returns the user id of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, cerr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) {
		var cred *unix.Xucred
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if cerr == nil {
			uid = int(cred.Uid)
		}
	}); err != nil {
		return -1, err
	}
	return uid, cerr
}

// procInfo returns the parent and the command name of process pid.
func procInfo(pid int) (ppid int, comm string, err error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, "", err
	}
	name := k.Proc.P_comm[:]
	for i, c := range name {
		if c == 0 {
			name = name[:i]
			break
		}
	}
	b := make([]byte, len(name))
	for i, c := range name {
		b[i] = byte(c)
	}
	return int(k.Eproc.Ppid), string(b), nil
}
