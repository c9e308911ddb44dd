//go:build unix

package herdr

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
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

// executable reports why this process may not run the regular file at
// path, or nil when it may. It asks the kernel (access(2) with X_OK), so the
// owner, group and other bits are applied as they would be to this user: a
// 0700 file owned by someone else is not executable here.
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

// killGroup kills what is left of the child's process group once the child
// has been waited for: a helper it started, whether the child exited zero,
// non-zero or was killed. An empty group is ESRCH, which is ignored. The
// group's id cannot name another group while a member of it lives, and a
// new process given the same id would only share it by calling setpgid
// itself, in the instant between the wait and the kill.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// processAlive reports whether pid runs (a zombie that nobody reaped yet
// counts as dead, where /proc tells).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no procfs: trust kill
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
