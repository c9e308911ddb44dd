//go:build unix && !darwin && !aix

package wire

import "syscall"

// newSocket returns a non-blocking Unix stream socket that a child process
// does not inherit.
func newSocket() (int, error) {
	return syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
}
