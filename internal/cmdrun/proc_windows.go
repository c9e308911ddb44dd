package cmdrun

import (
	"os/exec"
	"syscall"
)

// lockThread is false: Windows has no parent-death signal.
const lockThread = false

// setProcAttr hides the child's console window. Cancellation keeps
// os/exec's default, Process.Kill (TerminateProcess): there is no process
// group to signal, and WaitDelay bounds the wait for a grandchild holding
// the pipes.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
}

// killGroup does nothing: only the direct child is killed at the deadline.
func killGroup(*exec.Cmd) {}

// executable: Windows has no execute bit; a regular file is enough.
func executable(string) error { return nil }
