//go:build !unix && !windows

package cmdrun

import (
	"errors"
	"os"
	"os/exec"
)

// lockThread is false: there is no parent-death signal here.
const lockThread = false

// setProcAttr does nothing where there are no process groups: cancellation
// kills the child only, and WaitDelay bounds the wait for any grandchild.
func setProcAttr(*exec.Cmd) {}

// killGroup does nothing where there are no process groups.
func killGroup(*exec.Cmd) {}

// executable reports a file with no execute bit at all.
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
