//go:build unix

package herdr

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup starts the child in a process group of its own and makes
// cancellation kill the whole group with SIGKILL, so that a helper the CLI
// started cannot outlive the deadline.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}

// executable reports whether a file with mode m may be run.
func executable(m fs.FileMode) bool { return m&0o111 != 0 }

// killGroup kills what is left of the child's process group: a grandchild
// that kept the output pipes open after the child exited. It is only called
// when os/exec reports such a straggler, which keeps the group, and so its
// id, alive.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
