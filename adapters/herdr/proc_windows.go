package herdr

import (
	"io/fs"
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

// executable reports whether a file with mode m may be run. Windows has no
// execute bit; a regular file is enough.
func executable(fs.FileMode) bool { return true }

// killGroup does nothing on Windows: there is no process group to signal.
func killGroup(*exec.Cmd) {}
