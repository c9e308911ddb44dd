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

// agentTerminalPaths returns the devices of process pid's stdin, stdout and
// stderr (from /proc/<pid>/fd), without repeats.
func agentTerminalPaths(pid int) []string {
	var paths []string
	for fd := range 3 {
		path, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(fd))
		if err == nil && strings.HasPrefix(path, "/dev/") && !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	return paths
}
