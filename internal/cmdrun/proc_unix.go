//go:build unix

package cmdrun

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// setProcAttr starts the child in a process group of its own, with the
// platform's parent-death signal where there is one, and makes cancellation
// kill the whole group with SIGKILL, so that a helper the program started
// cannot outlive the deadline.
func setProcAttr(cmd *exec.Cmd) {
	attr := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(attr)
	cmd.SysProcAttr = attr
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}

// killGroup kills what is left of the child's process group once the child
// has been waited for. An empty group is ESRCH, ignored. While any member of
// the group lives, its id names no other group; once none does, a new
// process could only join the id by calling setpgid on it itself, in the
// instant between the wait and this kill.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// executable asks the kernel (access(2) with X_OK) whether this user may
// run path, so that owner, group and other bits apply as they would to an
// exec: a 0700 file of someone else's is not executable here.
func executable(path string) error {
	switch err := unix.Access(path, unix.X_OK); {
	case err == nil:
		return nil
	case errors.Is(err, unix.EACCES):
		return errors.New("not executable by this user")
	default:
		return fmt.Errorf("not executable: %w", err)
	}
}
