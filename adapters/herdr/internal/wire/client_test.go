package wire

import (
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// server is a one-connection-at-a-time test server: each accepted
// connection gets the next handler.
type server struct {
	socket string
	ln     net.Listener
	wg     sync.WaitGroup
}

func listen(t *testing.T, handle func(c net.Conn)) *server {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the client tests listen on a Unix socket")
	}
	s := &server{socket: filepath.Join(t.TempDir(), "herdr.sock")}
	ln, err := net.Listen("unix", s.socket)
	if err != nil {
		t.Fatal(err)
	}
	s.ln = ln
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Go(func() {
				defer c.Close()
				handle(c)
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

// answer reads the request line and writes resp.
func answer(resp string) func(c net.Conn) {
	return func(c net.Conn) {
		if _, err := ReadRequestLine(c); err == nil {
			io.WriteString(c, resp)
		}
	}
}

func TestDo(t *testing.T) {
	var got []byte
	s := listen(t, func(c net.Conn) {
		line, err := ReadRequestLine(c)
		if err != nil {
			return
		}
		got = line
		c.Write(OK(IDCLIRequest).Line())
	})
	req, err := NewRequest(IDCLIRequest, MethodReleaseAgent, ReleaseAgentParams{PaneID: "w1:p1", Source: "s", Agent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := Do(t.Context(), s.socket, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Err() != nil || resp.ID != IDCLIRequest || resp.ResultType() != ResultOK {
		t.Errorf("response %+v", resp)
	}
	if diff := cmp.Diff(string(got), `{"id":"cli:request","method":"pane.release_agent","params":{"pane_id":"w1:p1","source":"s","agent":"a"}}`); diff != "" {
		t.Errorf("server got (-got +want):\n%s", diff)
	}
}

func TestPing(t *testing.T) {
	s := listen(t, answer(`{"id":"api-client:status","result":{"type":"pong","version":"0.9.3","protocol":22,"capabilities":{"live_handoff":true,"detached_server_daemon":true,"later":1}}}`+"\n"))
	p, err := Ping(t.Context(), s.socket)
	if err != nil {
		t.Fatal(err)
	}
	want := Pong{Type: ResultPong, Version: "0.9.3", Protocol: Protocol09, Capabilities: Capabilities{LiveHandoff: true, DetachedServerDaemon: true}}
	if diff := cmp.Diff(p, want); diff != "" {
		t.Errorf("pong (-got +want):\n%s", diff)
	}
}

func TestPingFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		resp    string
		wantErr error
	}{
		{"error_response", `{"id":"","error":{"code":"invalid_request","message":"m"}}` + "\n", &Error{Code: CodeInvalidRequest, Message: "m"}},
		{"not_a_pong", `{"id":"api-client:status","result":{"type":"ok"}}` + "\n", ErrMalformedResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := listen(t, answer(tc.resp))
			_, err := Ping(t.Context(), s.socket)
			var we *Error
			if errors.As(tc.wantErr, &we) {
				var got *Error
				if !errors.As(err, &got) || *got != *we {
					t.Fatalf("Ping = %v, want %v", err, we)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Ping = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestDoFailures(t *testing.T) {
	ping := Request{ID: IDStatus, Method: MethodPing}
	for _, tc := range []struct {
		name    string
		handle  func(c net.Conn)
		timeout time.Duration
		wantErr error
	}{
		{"closed_without_answer", func(c net.Conn) { ReadRequestLine(c) }, 0, ErrEmptyResponse},
		{"closed_without_reading", func(c net.Conn) {}, 0, ErrEmptyResponse},
		{"answer_too_large", func(c net.Conn) {
			if _, err := ReadRequestLine(c); err == nil {
				c.Write(make([]byte, MaxResponse+10))
			}
		}, 0, ErrResponseTooLarge},
		{"garbage", answer("\xff\xfe garbage\n"), 0, ErrMalformedResponse},
		{"never_answers", func(c net.Conn) { io.Copy(io.Discard, c) }, 50 * time.Millisecond, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := listen(t, tc.handle)
			ctx := t.Context()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			_, err := Do(ctx, s.socket, ping)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Do = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestDoCancel(t *testing.T) {
	reading := make(chan struct{})
	s := listen(t, func(c net.Conn) {
		close(reading)
		io.Copy(io.Discard, c)
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-reading
		cancel()
	}()
	_, err := Do(ctx, s.socket, Request{ID: IDStatus, Method: MethodPing})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want context.Canceled", err)
	}
}

func TestDoNotRunning(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix sockets")
	}
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	for _, tc := range []struct{ name, socket string }{
		{"no_file", filepath.Join(dir, "absent.sock")},
		{"stale_socket", stale},
		{"empty_path", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Do(t.Context(), tc.socket, Request{ID: IDStatus, Method: MethodPing})
			var ce *ConnectError
			if !errors.Is(err, ErrNotRunning) || !errors.As(err, &ce) || ce.Socket != tc.socket {
				t.Fatalf("Do = %v, want a ConnectError wrapping ErrNotRunning", err)
			}
		})
	}
}

// BenchmarkDo is one request over a fresh connection to an in-process
// server that answers ok: the floor of a socket report.
func BenchmarkDo(b *testing.B) {
	dir := b.TempDir()
	socket := filepath.Join(dir, "herdr.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	defer func() {
		ln.Close()
		wg.Wait()
	}()
	ok := OK(IDCLIRequest).Line()
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if _, err := ReadRequestLine(c); err == nil {
				c.Write(ok)
			}
			c.Close()
		}
	})
	seq := uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		seq++
		req, err := NewRequest(IDCLIRequest, MethodReportAgent, ReportAgentParams{PaneID: "w1:p1", Source: "custom:b", Agent: "b", State: StateWorking, Seq: &seq})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Do(b.Context(), socket, req); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDoGuarded: a closed stop channel keeps the request from being written
// (the server reads nothing); one closed after the write does not cut the
// exchange short.
func TestDoGuarded(t *testing.T) {
	t.Run("stopped before the write", func(t *testing.T) {
		got := make(chan []byte, 1)
		s := listen(t, func(c net.Conn) {
			b, _ := ReadRequestLine(c)
			got <- b
			c.Write(OK("y").Line())
		})
		stop := make(chan struct{})
		close(stop)
		_, err := DoGuarded(t.Context(), s.socket, Request{ID: "x", Method: MethodPing, Params: []byte("{}")}, Guard{Stop: stop})
		if !errors.Is(err, ErrNotSent) {
			t.Fatalf("DoGuarded = %v, want ErrNotSent", err)
		}
		// Not even dialled: nothing was accepted. A ping proves the server
		// is up and that the first connection it saw is this one.
		if _, err := Do(t.Context(), s.socket, Request{ID: "y", Method: MethodPing, Params: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
		if b := <-got; !strings.Contains(string(b), `"y"`) {
			t.Errorf("the server first read %q, want the later ping", b)
		}
	})
	t.Run("stopped after the write", func(t *testing.T) {
		stop := make(chan struct{})
		s := listen(t, func(c net.Conn) {
			if _, err := ReadRequestLine(c); err != nil {
				return
			}
			close(stop) // withdrawn while the server works on it
			io.WriteString(c, `{"id":"x","result":{"type":"ok"}}`+"\n")
		})
		resp, err := DoGuarded(t.Context(), s.socket, Request{ID: "x", Method: MethodReportAgent, Params: []byte("{}")}, Guard{Stop: stop})
		if err != nil || resp.Error != nil {
			t.Fatalf("DoGuarded = %+v, %v, want the answer", resp, err)
		}
	})
	t.Run("peer refused", func(t *testing.T) {
		got := make(chan int, 1)
		s := listen(t, func(c net.Conn) {
			b, _ := io.ReadAll(c)
			got <- len(b)
		})
		errPeer := errors.New("not ours")
		_, err := DoGuarded(t.Context(), s.socket, Request{ID: "x", Method: MethodReportAgent, Params: []byte("{}")},
			Guard{Peer: func(net.Conn) error { return errPeer }})
		if !errors.Is(err, errPeer) {
			t.Fatalf("DoGuarded = %v, want the peer check's error", err)
		}
		if n := <-got; n != 0 {
			t.Errorf("the refused server read %d bytes, want none", n)
		}
	})
}

// TestGuardBoundsTheExchange: a Guard's Deadline bounds the exchange as a
// deadline of ctx would, the earlier of the two winning, and a cancelled
// Closed ends it with its error, in a read the server never answers and in
// a write it never reads.
func TestGuardBoundsTheExchange(t *testing.T) {
	big := Request{ID: "x", Method: MethodReportAgent, Params: []byte(`{"pad":"` + strings.Repeat("a", MaxRequestLine-64) + `"}`)}
	small := Request{ID: IDStatus, Method: MethodPing, Params: []byte("{}")}
	for _, tc := range []struct {
		name     string
		stall    bool // the server never reads (else it reads and never answers)
		req      Request
		ctxAfter time.Duration // ctx's own deadline; 0: none
		deadline time.Duration // the Guard's; 0: none
		cancel   bool          // cancel the Guard's Closed after 20 ms
		want     error
	}{
		{"deadline_in_read", false, small, 0, 50 * time.Millisecond, false, context.DeadlineExceeded},
		{"deadline_in_write", true, big, 0, 50 * time.Millisecond, false, context.DeadlineExceeded},
		{"ctx_deadline_earlier", false, small, 50 * time.Millisecond, time.Hour, false, context.DeadlineExceeded},
		{"guard_deadline_earlier", false, small, time.Hour, 50 * time.Millisecond, false, context.DeadlineExceeded},
		{"closed_in_read", false, small, 0, time.Hour, true, context.Canceled},
		{"closed_in_write", true, big, 0, time.Hour, true, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{}) // the exchange is over: a stalled server may go
			handle := func(c net.Conn) { io.Copy(io.Discard, c) }
			if tc.stall {
				handle = func(net.Conn) { <-done }
			}
			s := listen(t, handle)
			defer close(done) // before listen's cleanup waits for the handler
			ctx := t.Context()
			if tc.ctxAfter > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.ctxAfter)
				defer cancel()
			}
			g := Guard{}
			if tc.deadline > 0 {
				g.Deadline = time.Now().Add(tc.deadline)
			}
			closed, cancel := context.WithCancel(t.Context())
			defer cancel()
			g.Closed = closed
			if tc.cancel {
				timer := time.AfterFunc(20*time.Millisecond, cancel)
				defer timer.Stop()
			}
			_, err := DoGuarded(ctx, s.socket, tc.req, g)
			if !errors.Is(err, tc.want) {
				t.Fatalf("DoGuarded = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestDialContextKeepsTheGuardsBounds: a dial that may wait (Windows: a
// named pipe whose instances are all busy) ends at the Guard's deadline
// and when its Closed context ends, as the exchange after it does, not
// only with the caller's ctx.
func TestDialContextKeepsTheGuardsBounds(t *testing.T) {
	closedCtx, closeIt := context.WithCancel(t.Context())
	closeIt()
	for _, tc := range []struct {
		name     string
		deadline time.Time
		closed   context.Context
		want     error // nil: still open
	}{
		{"no_bound", time.Time{}, nil, nil},
		{"deadline_passed", time.Now().Add(-time.Second), nil, context.DeadlineExceeded},
		{"deadline_ahead", time.Now().Add(time.Hour), nil, nil},
		{"closed", time.Time{}, closedCtx, context.Canceled},
		{"closed_never", time.Time{}, context.Background(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dctx, cancel := dialContext(t.Context(), tc.deadline, tc.closed)
			if tc.want != nil {
				<-dctx.Done()
			}
			if err := dctx.Err(); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("dial context's error %v, want %v", err, tc.want)
			}
			cancel()
		})
	}
}

// TestPassedDeadlineConnectsToNothing: a Guard deadline that has already
// passed fails the exchange as a passed ctx deadline does, with a
// *ConnectError wrapping context.DeadlineExceeded, before any connection:
// the server sees nothing, not a connection closed without a line.
func TestPassedDeadlineConnectsToNothing(t *testing.T) {
	var conns atomic.Int32
	s := listen(t, func(c net.Conn) {
		conns.Add(1)
		answer(`{"id":"x","result":{"type":"ok"}}` + "\n")(c)
	})
	ping := Request{ID: "x", Method: MethodPing, Params: []byte("{}")}
	_, err := DoGuarded(t.Context(), s.socket, ping, Guard{Deadline: time.Now().Add(-time.Millisecond)})
	var ce *ConnectError
	if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v (%T), want a *ConnectError wrapping %v", err, err, context.DeadlineExceeded)
	}
	if _, err := Do(t.Context(), s.socket, ping); err != nil { // a connection the server does see
		t.Fatal(err)
	}
	s.ln.Close()
	s.wg.Wait()
	if n := conns.Load(); n != 1 {
		t.Errorf("the server saw %d connections, want 1: the exchange after the one past its deadline", n)
	}
}
