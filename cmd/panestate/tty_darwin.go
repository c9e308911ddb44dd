package main

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ioctlReadTermios reads a terminal's attributes: it fails on anything but
// a terminal.
const ioctlReadTermios = unix.TIOCGETA

// agentTerminalPaths returns the controlling terminal of process pid: the
// device the system records for it (kern.proc.pid, e_tdev), found among
// /dev/tty* by its device number.
func agentTerminalPaths(pid int) []string {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Eproc.Tdev == -1 || kp.Eproc.Tdev == 0 {
		return nil
	}
	entries, err := os.ReadDir("/dev")
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "tty") {
			continue
		}
		path := filepath.Join("/dev", e.Name())
		var st unix.Stat_t
		if unix.Stat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR && int64(st.Rdev) == int64(kp.Eproc.Tdev) {
			return []string{path}
		}
	}
	return nil
}
