//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// Alive reports whether pid runs: a zombie that nobody reaped yet counts
// as dead where the system tells (zombie).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !zombie(pid)
}
