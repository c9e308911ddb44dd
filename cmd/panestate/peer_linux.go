package main

import (
	"errors"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// socketPeerUID returns the user id of the peer of the socket fd.
func socketPeerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}

var errBadStat = errors.New("panestate: unreadable process status")

// procInfo returns the parent and the command name of process pid. It
// reads /proc/<pid>/stat with the system calls directly: the hook reads up
// to four of these files, and an os.File for each (its poller registration
// and cleanup) costs more than the read.
func procInfo(pid int) (ppid int, comm string, err error) {
	fields, comm, err := procStat(pid)
	if err != nil {
		return 0, "", err
	}
	ppid, err = strconv.Atoi(fields[1])
	return ppid, comm, err
}

// procStat reads /proc/<pid>/stat: the fields after the command name (the
// state first, then the parent's pid, ...; at least two) and the command
// name.
func procStat(pid int) (fields []string, comm string, err error) {
	var buf [512]byte
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", err
	}
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil {
		return nil, "", err
	}
	s := string(buf[:max(n, 0)])
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return nil, "", errBadStat
	}
	fields = strings.Fields(s[closing+1:])
	if len(fields) < 2 {
		return nil, "", errBadStat
	}
	return fields, s[open+1 : closing], nil
}
