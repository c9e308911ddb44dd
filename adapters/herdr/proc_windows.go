package herdr

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup hides the child's console window. Cancellation uses
// os/exec's default, Process.Kill (TerminateProcess); Windows has no process
// group signal, and cmd.WaitDelay bounds the wait for any grandchild that
// keeps the output pipes open.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
}

// executable reports why the regular file at path may not be run. Windows
// has no execute bit; a regular file is enough.
func executable(string) error { return nil }

// killGroup does nothing on Windows: there is no process group to signal,
// so only the direct child is killed at the deadline; a grandchild it
// started lives on (cmd.WaitDelay still closes the pipes it holds).
func killGroup(*exec.Cmd) {}

// processAlive reports whether pid runs: whether a process of that id can
// be opened.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
