package testenv

import (
	"bytes"
	"io"
	"sync"
	"testing"
	"time"
)

// Screen collects what a program writes to its terminal (the other end of
// a pty, a fifo fed by tmux's pipe-pane) and lets a test wait until enough
// of it has arrived, without sleeping: every read wakes the waiters.
type Screen struct {
	// OnRead, when set before CopyFrom starts, is called after each read
	// with everything read so far (which it must not keep), for a test
	// that answers what the program asks, as a terminal would.
	OnRead func(all []byte)

	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every read
}

// NewScreen returns an empty Screen.
func NewScreen() *Screen { return &Screen{changed: make(chan struct{})} }

// CopyFrom reads r into the screen until a read fails (EOF, or EIO once
// the program has exited and closed its pty).
func (s *Screen) CopyFrom(r io.Reader) {
	b := make([]byte, 4096)
	for {
		n, err := r.Read(b)
		s.mu.Lock()
		s.buf.Write(b[:n])
		if s.OnRead != nil && n > 0 {
			s.OnRead(s.buf.Bytes())
		}
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// Bytes returns a copy of everything read so far.
func (s *Screen) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.buf.Bytes())
}

// Wait blocks until done says what has been read is enough, or fails the
// test after timeout (a bound far above what a run needs, so that only a
// hang fails), showing what it got. done must not keep its argument.
func (s *Screen) Wait(t testing.TB, timeout time.Duration, what string, done func([]byte) bool) {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		ok, ch := done(s.buf.Bytes()), s.changed
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("%s did not appear on the terminal within %v; got %q", what, timeout, s.Bytes())
		}
	}
}
