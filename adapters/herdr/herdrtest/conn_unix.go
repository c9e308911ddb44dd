//go:build unix

package herdrtest

import (
	"errors"
	"io"
	"net"
	"syscall"
)

// rawConn returns c's descriptor for readNow and writeNow, or nil when c is
// not a Unix socket.
func rawConn(c net.Conn) syscall.RawConn {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// readNow reads into p what has already arrived on raw, without waiting
// and so without a deadline: done is false when nothing has (the caller
// then waits, with its deadline set). At the end of the stream it returns
// io.EOF, as a net.Conn's Read does.
func readNow(raw syscall.RawConn, p []byte) (n int, done bool, err error) {
	if raw == nil {
		return 0, false, nil
	}
	var serr error
	if err := raw.Read(func(fd uintptr) bool {
		for {
			n, serr = syscall.Read(int(fd), p)
			if serr != syscall.EINTR {
				return true
			}
		}
	}); err != nil {
		return 0, true, err
	}
	switch {
	case errors.Is(serr, syscall.EAGAIN):
		return 0, false, nil
	case serr != nil:
		return 0, true, serr
	case n == 0 && len(p) > 0:
		return 0, true, io.EOF
	}
	return n, true, nil
}

// writeNow writes as much of p to raw as the socket takes without waiting
// and so without a deadline: done is false when some of p is left (the
// caller then waits for the rest, with its deadline set).
func writeNow(raw syscall.RawConn, p []byte) (n int, done bool, err error) {
	if raw == nil {
		return 0, false, nil
	}
	var serr error
	if err := raw.Write(func(fd uintptr) bool {
		for n < len(p) {
			m, err := syscall.Write(int(fd), p[n:])
			switch {
			case err == syscall.EINTR:
				continue
			case err != nil:
				serr = err
				return true
			}
			n += m
		}
		return true
	}); err != nil {
		return n, true, err
	}
	switch {
	case errors.Is(serr, syscall.EAGAIN):
		return n, false, nil
	case serr != nil:
		return n, true, serr
	}
	return n, true, nil
}
