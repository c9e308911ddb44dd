//go:build unix

package herdr

import (
	"errors"
	"net"
	"syscall"
)

// withFD runs f with the descriptor of the Unix socket c.
func withFD(c net.Conn, f func(fd int) error) error {
	uc, ok := c.(syscall.Conn) // a *net.UnixConn, or the blocking one of package wire
	if !ok {
		return errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// socketOwner returns the user id of the owner of the socket file at path,
// a link followed.
func socketOwner(path string) (int, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return -1, err
	}
	return int(st.Uid), nil
}
