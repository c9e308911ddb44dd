//go:build unix

package wire

import (
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestExchangeSocketIsBlockingAndNotInherited: the connection a Peer check
// sees is a blocking socket marked close-on-exec, so that a CLI or hook
// started meanwhile never inherits it, and its RemoteAddr is the socket's
// path (what a check by the file's owner reads).
func TestExchangeSocketIsBlockingAndNotInherited(t *testing.T) {
	s := listen(t, answer(`{"id":"x","result":{"type":"ok"}}`+"\n"))
	var flags, fdFlags int
	var remote string
	peer := func(c net.Conn) error {
		remote = c.RemoteAddr().String()
		raw, err := c.(syscall.Conn).SyscallConn()
		if err != nil {
			return err
		}
		var ferr error
		if err := raw.Control(func(fd uintptr) {
			if flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0); ferr == nil {
				fdFlags, ferr = unix.FcntlInt(fd, unix.F_GETFD, 0)
			}
		}); err != nil {
			return err
		}
		return ferr
	}
	if _, err := DoGuarded(t.Context(), s.socket, Request{ID: "x", Method: MethodPing, Params: []byte("{}")}, Guard{Peer: peer}); err != nil {
		t.Fatal(err)
	}
	if flags&unix.O_NONBLOCK != 0 {
		t.Errorf("the socket is non-blocking (flags %#x)", flags)
	}
	if fdFlags&unix.FD_CLOEXEC == 0 {
		t.Errorf("the socket is not close-on-exec (fd flags %#x)", fdFlags)
	}
	if remote != s.socket {
		t.Errorf("RemoteAddr = %q, want %q", remote, s.socket)
	}
}

// TestInterruptAfterCloseShutsNothingDown: a cancellation that fires
// after the exchange closed its socket must not shut down the descriptor
// number, which another connection of the process may have been given
// since; one that fires before the close shuts its own socket down.
func TestInterruptAfterCloseShutsNothingDown(t *testing.T) {
	var shut []int
	orig := sysShutdown
	sysShutdown = func(fd, how int) error {
		shut = append(shut, fd)
		return orig(fd, how)
	}
	defer func() { sysShutdown = orig }()
	s := listen(t, answer(`{"id":"x","result":{"type":"ok"}}`+"\n"))
	live, err := dialFD(s.socket)
	if err != nil {
		t.Fatal(err)
	}
	live.interrupt()
	live.close()
	closed, err := dialFD(s.socket)
	if err != nil {
		t.Fatal(err)
	}
	closed.close()
	closed.interrupt() // late: the exchange it belonged to is over
	if len(shut) != 1 || shut[0] != live.fd {
		t.Errorf("shut down %v, want only the live socket's %d", shut, live.fd)
	}
}

// TestExchangesCloseTheirSockets: no outcome of an exchange leaves its
// descriptor open: answered, refused by the Peer check, stopped, not
// answered by the deadline, cancelled.
func TestExchangesCloseTheirSockets(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	open := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	// The servers run in this process: each connection's server side is
	// closed and counted done before descriptors are counted.
	var served sync.WaitGroup
	counted := func(h func(net.Conn)) func(net.Conn) {
		return func(c net.Conn) {
			defer served.Done()
			defer c.Close()
			h(c)
		}
	}
	ok := listen(t, counted(answer(`{"id":"x","result":{"type":"ok"}}`+"\n")))
	hold := listen(t, counted(func(c net.Conn) { io.Copy(io.Discard, c) }))
	ping := Request{ID: "x", Method: MethodPing, Params: []byte("{}")}
	refuse := func(net.Conn) error { return io.ErrUnexpectedEOF }
	stopped := make(chan struct{})
	close(stopped)
	run := func() {
		served.Add(3) // a stopped exchange never connects
		Do(t.Context(), ok.socket, ping)
		DoGuarded(t.Context(), ok.socket, ping, Guard{Peer: refuse})
		DoGuarded(t.Context(), ok.socket, ping, Guard{Stop: stopped})
		DoGuarded(t.Context(), hold.socket, ping, Guard{Deadline: time.Now().Add(5 * time.Millisecond)})
		served.Wait()
	}
	run() // the servers' own descriptors are open by now
	before := open()
	for range 20 {
		run()
	}
	if after := open(); after != before {
		t.Errorf("%d descriptors open after 80 exchanges, %d before", after, before)
	}
}

// TestReadKeepsTheDeadlineAcrossInterrupts: a read interrupted by a signal
// (EINTR, which a socket timeout turns a restart into) is not simply made
// again: the timeout would start over, and a signal that keeps coming (a
// child's SIGCHLD, the profiler's SIGPROF) would keep the exchange waiting
// past its deadline for ever. The deadline is checked again first.
func TestReadKeepsTheDeadlineAcrossInterrupts(t *testing.T) {
	c := silentConn(t, listen(t, func(c net.Conn) { io.Copy(io.Discard, c) }))
	calls := 0
	sysRead = func(fd int, p []byte) (int, error) {
		calls++
		if calls > 1 {
			return copy(p, "x"), nil
		}
		// The signal came when the deadline had passed.
		c.deadline = time.Now().Add(-time.Second)
		return -1, syscall.EINTR
	}
	t.Cleanup(func() { sysRead = syscall.Read })
	n, err := c.Read(make([]byte, 8))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Read after an interrupt past the deadline = %d, %v; want %v", n, err, os.ErrDeadlineExceeded)
	}
	if calls != 1 {
		t.Errorf("%d reads made, want 1: the one interrupted", calls)
	}
}

// TestTimeoutBeforeTheDeadlineIsNotTheEnd: a socket timeout counts in the
// kernel's ticks, and one that ends a read or write a moment before the
// deadline (EAGAIN with the deadline still ahead) does not end the
// exchange: the call is made again for what is left, so that a timeout is
// reported only once the deadline has passed, as the caller can tell it.
func TestTimeoutBeforeTheDeadlineIsNotTheEnd(t *testing.T) {
	s := listen(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	for _, tc := range []struct {
		name string
		call func(c *fdConn) (int, error)
		hook func(f func(int, []byte) (int, error))
	}{
		{"read", func(c *fdConn) (int, error) { return c.Read(make([]byte, 8)) },
			func(f func(int, []byte) (int, error)) { sysRead = f }},
		{"write", func(c *fdConn) (int, error) { return c.Write([]byte("x")) },
			func(f func(int, []byte) (int, error)) { sysWrite = f }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := silentConn(t, s)
			calls := 0
			tc.hook(func(fd int, p []byte) (int, error) {
				calls++
				if calls == 1 {
					return -1, syscall.EAGAIN // the timeout, early
				}
				return 1, nil
			})
			t.Cleanup(func() { sysRead, sysWrite = syscall.Read, syscall.Write })
			if n, err := tc.call(c); n != 1 || err != nil {
				t.Errorf("after a timeout an hour before the deadline: %d, %v; want 1, nil", n, err)
			}
		})
	}
}

// silentConn connects to s with a deadline an hour away, closed when the
// test ends.
func silentConn(t *testing.T, s *server) *fdConn {
	t.Helper()
	c, err := dialFD(s.socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	if err := c.bound(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestServerGoneBeforeTheAnswerIsAnEmptyResponse: whichever way the
// blocking exchange learns that the server closed with the request unread
// (EPIPE or ECONNRESET on the write, ECONNRESET on the read), the error is
// ErrEmptyResponse with the system's error, as through package net.
func TestServerGoneBeforeTheAnswerIsAnEmptyResponse(t *testing.T) {
	s := listen(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	ping := Request{ID: "x", Method: MethodPing, Params: []byte("{}")}
	fail := func(errno syscall.Errno) func(int, []byte) (int, error) {
		return func(int, []byte) (int, error) { return -1, errno }
	}
	for _, tc := range []struct {
		name  string
		write bool // the write fails, else the read
		errno syscall.Errno
	}{
		{"write_epipe", true, syscall.EPIPE},
		{"write_econnreset", true, syscall.ECONNRESET},
		{"read_econnreset", false, syscall.ECONNRESET},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.write {
				sysWrite = fail(tc.errno)
			} else {
				sysRead = fail(tc.errno)
			}
			t.Cleanup(func() { sysRead, sysWrite = syscall.Read, syscall.Write })
			_, err := DoGuarded(t.Context(), s.socket, ping, Guard{Deadline: time.Now().Add(time.Hour)})
			if !errors.Is(err, ErrEmptyResponse) || !errors.Is(err, tc.errno) {
				t.Errorf("DoGuarded = %v, want %v with %v", err, ErrEmptyResponse, tc.errno)
			}
		})
	}
}
