//go:build !unix && !windows

package herdr

import (
	"io/fs"
	"os/exec"
)

// setProcessGroup does nothing on systems without process groups;
// cancellation kills the child only, and cmd.WaitDelay bounds the wait for
// any grandchild.
func setProcessGroup(*exec.Cmd) {}

// executable reports whether a file with mode m may be run.
func executable(m fs.FileMode) bool { return m&0o111 != 0 }

// killGroup does nothing where there are no process groups.
func killGroup(*exec.Cmd) {}
