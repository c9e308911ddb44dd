//go:build darwin || aix

package wire

import "syscall"

// newSocket returns a non-blocking Unix stream socket that a child process
// does not inherit. macOS and AIX have no flags for that in socket(2): the
// descriptor is marked close-on-exec under the fork lock, so that no
// process started meanwhile inherits it, as package net does.
func newSocket() (int, error) {
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}
