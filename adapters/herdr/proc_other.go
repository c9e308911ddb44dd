//go:build !unix && !windows

package herdr

import (
	"errors"
	"os"
	"os/exec"
)

// setProcessGroup does nothing on systems without process groups;
// cancellation kills the child only, and cmd.WaitDelay bounds the wait for
// any grandchild.
func setProcessGroup(*exec.Cmd) {}

// executable reports why the regular file at path may not be run: here,
// when it has no execute bit at all.
func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&0o111 == 0 {
		return errors.New("not executable")
	}
	return nil
}

// killGroup does nothing where there are no process groups.
func killGroup(*exec.Cmd) {}

// processAlive cannot tell here; a claim's process is assumed to run.
func processAlive(pid int) bool { return pid > 0 }
