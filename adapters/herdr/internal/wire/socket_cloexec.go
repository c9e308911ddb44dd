//go:build unix && !darwin && !aix

package wire

import "golang.org/x/sys/unix"

// newSocket returns a non-blocking Unix stream socket that a child process
// does not inherit.
func newSocket() (int, error) {
	return unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
}
