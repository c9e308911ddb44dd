//go:build darwin || aix

package wire

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// newSocket returns a non-blocking Unix stream socket that a child process
// does not inherit. macOS and AIX have no flags for that in socket(2): the
// descriptor is marked close-on-exec under the fork lock, so that no
// process started meanwhile inherits it, as package net does.
func newSocket() (int, error) {
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
