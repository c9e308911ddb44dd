//go:build unix

package wire

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// dialExchange connects to the Unix socket at socket for one exchange.
//
// The exchange is made with blocking system calls on the calling
// goroutine's thread, not through the runtime's network poller: a report is
// one short exchange, and the poller would add, for each one, two epoll_ctl
// calls, a park and a wake-up of the goroutine (a futex wake of another
// thread when the answer comes), and runtime timers for the deadline, each
// of which may wake the poller. On a small virtual machine a wake-up of
// another thread is the dearest thing in the exchange (docs/benchmarks.md,
// BenchmarkTransport). The deadline is the socket's own send and receive
// timeouts instead (SO_SNDTIMEO, SO_RCVTIMEO, as Herdr bounds its own
// sends), and ctx and g.Closed end a blocked exchange by shutting the
// socket down.
func dialExchange(_ context.Context, socket string, _ time.Time, _ context.Context) (exchangeConn, error) {
	c, err := dialFD(socket)
	if err != nil {
		return nil, &ConnectError{Socket: socket, Err: err}
	}
	return c, nil
}

// fdConn is a connected Unix stream socket in blocking mode, used by one
// goroutine: only interrupt may run concurrently with its other methods.
// It implements net.Conn so that a [Guard]'s Peer can read the peer's
// credentials from it; its deadlines are the socket's timeouts. It uses
// package syscall only (the package takes no outside module on Unix), and
// reads and writes as package net does underneath: under the race detector
// syscall.Read and Write mark what passes through a socket as synchronised,
// with a server of the same process too (x/sys/unix keeps a mark of its
// own, which package net's side never sees).
type fdConn struct {
	fd       int
	path     string
	deadline time.Time     // zero: none
	timeo    time.Duration // the timeouts last set on the socket

	mu          sync.Mutex // guards fd against interrupt after close
	closed      bool
	interrupted bool
}

// dialFD connects to the socket at path. The connect does not wait: a Unix
// connect succeeds at once or fails at once (nothing listens, the backlog
// is full), as it did through package net; only then is the socket made
// blocking.
func dialFD(path string) (*fdConn, error) {
	fd, err := newSocket()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := connect(fd, path); err != nil {
		_ = syscall.Close(fd)
		return nil, &net.OpError{Op: "dial", Net: "unix", Addr: &net.UnixAddr{Name: path, Net: "unix"}, Err: os.NewSyscallError("connect", err)}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		_ = syscall.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	return &fdConn{fd: fd, path: path}, nil
}

func connect(fd int, path string) error {
	for {
		err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EINTR {
			return err
		}
	}
}

// bound bounds every later read and write by t.
func (c *fdConn) bound(t time.Time) error {
	c.deadline = t
	return c.setTimeouts(time.Until(t))
}

// setTimeouts sets both socket timeouts to d, at least a microsecond
// (zero would mean none).
func (c *fdConn) setTimeouts(d time.Duration) error {
	d = max(d, time.Microsecond)
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	if err := syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	if err := syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	c.timeo = d
	return nil
}

// beforeCall keeps the socket's timeouts within the deadline: a timeout
// counts from the start of each call, so one set earlier may reach past it.
func (c *fdConn) beforeCall() error {
	if c.deadline.IsZero() {
		return nil
	}
	left := time.Until(c.deadline)
	if left <= 0 {
		return os.ErrDeadlineExceeded
	}
	if c.timeo-left > time.Millisecond {
		return c.setTimeouts(left)
	}
	return nil
}

// sysRead and sysWrite are syscall.Read and syscall.Write (not unix's:
// see fdConn); tests replace them.
var sysRead, sysWrite = syscall.Read, syscall.Write

// sysShutdown is syscall.Shutdown; tests replace it.
var sysShutdown = syscall.Shutdown

func (c *fdConn) Read(p []byte) (int, error) {
	for {
		// Before each call, the one after an EINTR too: the timeout
		// starts over with each call, so a signal that kept coming would
		// otherwise keep the read going past the deadline.
		if err := c.beforeCall(); err != nil {
			return 0, err
		}
		n, err := sysRead(c.fd, p)
		switch {
		case err == syscall.EINTR, err == syscall.EAGAIN && c.early():
			continue
		case err != nil:
			return 0, c.failed("read", err)
		case n == 0 && len(p) > 0:
			if c.wasInterrupted() {
				return 0, os.ErrDeadlineExceeded
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *fdConn) Write(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		if err := c.beforeCall(); err != nil {
			return w, err
		}
		n, err := sysWrite(c.fd, p[w:])
		if err == syscall.EINTR || err == syscall.EAGAIN && c.early() {
			continue
		}
		if err != nil {
			return w, c.failed("write", err)
		}
		w += n
	}
	return w, nil
}

// early reports whether a socket timeout (EAGAIN) came before the
// deadline: the kernel counts a timeout in its ticks, and may end a call
// up to one tick early (Linux's schedule_timeout). The call is then made
// again for what is left, so that the exchange reports a timeout only once
// the deadline has passed, as its caller can tell.
func (c *fdConn) early() bool {
	return !c.deadline.IsZero() && time.Now().Before(c.deadline) && !c.wasInterrupted()
}

// failed turns a failed read or write into its error: the deadline's when
// the timeout expired or the exchange was interrupted.
func (c *fdConn) failed(op string, err error) error {
	if err == syscall.EAGAIN || c.wasInterrupted() {
		return os.ErrDeadlineExceeded
	}
	return os.NewSyscallError(op, err)
}

// interrupt ends a blocked read or write (it then fails with
// os.ErrDeadlineExceeded): a shutdown wakes it, where a close would not.
// It may run concurrently with the other methods.
func (c *fdConn) interrupt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.interrupted = true
	_ = sysShutdown(c.fd, syscall.SHUT_RDWR)
}

func (c *fdConn) wasInterrupted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.interrupted
}

func (c *fdConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		_ = syscall.Close(c.fd)
	}
}

// Close closes the connection; a Peer check must not call it.
func (c *fdConn) Close() error { c.close(); return nil }

// LocalAddr is unnamed, as a client's Unix socket is.
func (c *fdConn) LocalAddr() net.Addr { return &net.UnixAddr{Net: "unix"} }

// RemoteAddr is the socket's path.
func (c *fdConn) RemoteAddr() net.Addr { return &net.UnixAddr{Name: c.path, Net: "unix"} }

// SetDeadline, SetReadDeadline and SetWriteDeadline are not for a Peer
// check: the exchange sets its one deadline itself.
func (c *fdConn) SetDeadline(time.Time) error { return errors.ErrUnsupported }

// SetReadDeadline: see SetDeadline.
func (c *fdConn) SetReadDeadline(time.Time) error { return errors.ErrUnsupported }

// SetWriteDeadline: see SetDeadline.
func (c *fdConn) SetWriteDeadline(time.Time) error { return errors.ErrUnsupported }

// SyscallConn gives the descriptor to a Peer check (its Control only).
func (c *fdConn) SyscallConn() (syscall.RawConn, error) { return rawFD{c.fd}, nil }

type rawFD struct{ fd int }

func (r rawFD) Control(f func(uintptr)) error { f(uintptr(r.fd)); return nil }

func (rawFD) Read(func(uintptr) bool) error  { return errors.ErrUnsupported }
func (rawFD) Write(func(uintptr) bool) error { return errors.ErrUnsupported }
