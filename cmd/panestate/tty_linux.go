package main

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ioctlReadTermios reads a terminal's attributes: it fails on anything but
// a terminal.
const ioctlReadTermios = unix.TCGETS

// ptySlaveMajor is the device major number of the pseudo-terminals in
// /dev/pts: /dev/pts/N is its minor N.
const ptySlaveMajor = 136

// agentStdTerminals returns process pid's stdin, stdout and stderr that are
// devices (from /proc/<pid>/fd, opened through the agent's own descriptor,
// so that the device opened is the agent's whatever its path names by
// then), without repeats. A descriptor opened as /dev/tty is left to
// controllingTerminal: opening it again would open the caller's.
func agentStdTerminals(pid int) []terminalCandidate {
	var cands []terminalCandidate
	for fd := range 3 {
		link := "/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(fd)
		path, err := os.Readlink(link)
		if err != nil || !strings.HasPrefix(path, "/dev/") || path == "/dev/tty" ||
			slices.ContainsFunc(cands, func(c terminalCandidate) bool { return c.name == path }) {
			continue
		}
		cands = append(cands, terminalCandidate{name: path, open: link})
	}
	return cands
}

// controllingTerminal returns the controlling terminal of process pid
// (/proc/<pid>/stat, its tty_nr), found in /dev by its device number.
func controllingTerminal(pid int) (terminalCandidate, bool) {
	fields, _, err := procStat(pid)
	if err != nil || len(fields) < 5 {
		return terminalCandidate{}, false
	}
	// The fields after the command name: state, ppid, pgrp, session, tty_nr.
	dev, err := strconv.ParseUint(fields[4], 10, 32)
	if err != nil || dev == 0 {
		return terminalCandidate{}, false
	}
	guess := ""
	if unix.Major(dev) == ptySlaveMajor {
		guess = "/dev/pts/" + strconv.FormatUint(uint64(unix.Minor(dev)), 10)
	}
	path := devicePath(dev, guess)
	return terminalCandidate{name: path, open: path, rdev: dev}, path != ""
}
