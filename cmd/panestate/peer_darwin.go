package main

import "golang.org/x/sys/unix"

// socketPeerUID returns the user id of the peer of the socket fd.
func socketPeerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
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
