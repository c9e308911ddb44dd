package main

import (
	"errors"
	"os"
	"strconv"
	"strings"

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

// procInfo returns the parent and the command name of process pid.
func procInfo(pid int) (ppid int, comm string, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", err
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return 0, "", errBadStat
	}
	fields := strings.Fields(s[closing+1:])
	if len(fields) < 2 {
		return 0, "", errBadStat
	}
	ppid, err = strconv.Atoi(fields[1])
	return ppid, s[open+1 : closing], err
}
