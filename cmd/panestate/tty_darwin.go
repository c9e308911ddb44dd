package main

import (
	"golang.org/x/sys/unix"
)

// ioctlReadTermios reads a terminal's attributes: it fails on anything but
// a terminal.
const ioctlReadTermios = unix.TIOCGETA

// agentStdTerminals returns nothing: macOS has no /proc to read another
// process's descriptors from; controllingTerminal finds the agent's.
func agentStdTerminals(int) []terminalCandidate { return nil }

// controllingTerminal returns the controlling terminal of process pid: the
// device the system records for it (kern.proc.pid, e_tdev), found among
// /dev/tty* by its device number.
func controllingTerminal(pid int) (terminalCandidate, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Eproc.Tdev == -1 || kp.Eproc.Tdev == 0 {
		return terminalCandidate{}, false
	}
	dev := uint64(uint32(kp.Eproc.Tdev))
	path := devicePath(dev, "")
	return terminalCandidate{name: path, open: path, rdev: dev}, path != ""
}
