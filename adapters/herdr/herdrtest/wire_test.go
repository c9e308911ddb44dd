package herdrtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
)

// dialRaw connects to h's socket for a hand-written exchange.
func dialRaw(t *testing.T, h *Herdr) net.Conn {
	t.Helper()
	c, err := wire.Dial(t.Context(), h.Socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// exchange writes raw on a new connection, closes the writing side, and
// returns everything the server sent before it closed.
func exchange(t *testing.T, h *Herdr, raw string) string {
	t.Helper()
	c := dialRaw(t, h)
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	got, _ := io.ReadAll(c) // a reset after a refused line reads as the end
	return string(got)
}

// linesReceived returns the request lines the server received, in arrival
// order.
func linesReceived(h *Herdr) []string {
	var lines []string
	for _, r := range h.srv.snapshot() {
		lines = append(lines, string(r.line))
	}
	return lines
}

// TestChecklistWire covers checklist items 22-26, the socket exchange
// itself (CONTRACT §2.1-2.4).
func TestChecklistWire(t *testing.T) {
	t.Run("22_23_cli_pings_then_sends_one_line_each", func(t *testing.T) {
		// The two commands of CONTRACT §2.4's literal exchange; every line
		// below is copied from there.
		r := newRunner(t, Options{})
		r.ok(report(p, "custom:my-agent", "my-agent", "working", "--message", "building", "--seq", "1755600000000000001")...)
		r.ok(release(p, "custom:my-agent", "my-agent", "--seq", "1755600000000000002")...)
		want := []string{
			`{"id":"api-client:status","method":"ping","params":{}}`,
			`{"id":"cli:request","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"custom:my-agent","agent":"my-agent","state":"working","message":"building","seq":1755600000000000001}}`,
			`{"id":"api-client:status","method":"ping","params":{}}`,
			`{"id":"cli:request","method":"pane.release_agent","params":{"pane_id":"w1:p1","source":"custom:my-agent","agent":"my-agent","seq":1755600000000000002}}`,
		}
		if diff := cmp.Diff(linesReceived(r.h), want); diff != "" {
			t.Errorf("lines the server received (-got +want):\n%s", diff)
		}
		for _, rec := range r.h.srv.snapshot() {
			if !rec.cli {
				t.Errorf("request %d from the fake binary was not told apart from a socket client", rec.arrival)
			}
		}
		// And the answers, to the same lines sent raw (the report and the
		// release are stale now, which changes nothing in the answer).
		for line, answer := range map[string]string{
			want[0]: `{"id":"api-client:status","result":{"type":"pong","version":"0.8.2","protocol":20,"capabilities":{"live_handoff":true,"detached_server_daemon":false}}}`,
			want[1]: `{"id":"cli:request","result":{"type":"ok"}}`,
			want[3]: `{"id":"cli:request","result":{"type":"ok"}}`,
		} {
			if got := exchange(t, r.h, line+"\n"); got != answer+"\n" {
				t.Errorf("%s\n got %q\nwant %q", line, got, answer+"\n")
			}
		}
	})
	t.Run("24_ok_response_then_close", func(t *testing.T) {
		h := StartT(t, Options{})
		got := exchange(t, h, `{"id":"r1","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"custom:x","agent":"x","state":"blocked","seq":3}}`+"\n")
		if got != `{"id":"r1","result":{"type":"ok"}}`+"\n" {
			t.Errorf("response %q", got)
		}
		got = exchange(t, h, `{"id":"r2","method":"pane.release_agent","params":{"pane_id":"w1:p1","source":"custom:x","agent":"x","seq":4}}`+"\n")
		if got != `{"id":"r2","result":{"type":"ok"}}`+"\n" {
			t.Errorf("response %q", got)
		}
		if hwm, _ := h.HighWater(p, "custom:x"); hwm != 4 {
			t.Errorf("high-water mark %d, want 4", hwm)
		}
	})
	t.Run("25_invalid_request_has_an_empty_id", func(t *testing.T) {
		h := StartT(t, Options{})
		for _, line := range []string{
			`{"id":"r1","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"s","agent":"a","state":"done"}}`,
			`{"id":"r1","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"s","agent":"a","state":"idle","seq":-1}}`,
			`{"id":"r1","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"s","agent":"a","state":"idle","seq":1.5}}`,
			`{"id":"r1","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"s","agent":"a","state":"idle","seq":"7"}}`,
			`{"id":"r1","method":"pane.release_agent","params":{"pane_id":"w1:p1","agent":"a"}}`,
			`{"id":"r1","method":"pane.frobnicate","params":{}}`,
			`{"id":"r1","method":"ping"}`,
			`not json at all`,
		} {
			got := exchange(t, h, line+"\n")
			resp, err := wire.DecodeResponse([]byte(strings.TrimSuffix(got, "\n")))
			if err != nil || resp.ID != "" || resp.Error == nil || resp.Error.Code != wire.CodeInvalidRequest ||
				!strings.HasPrefix(resp.Error.Message, "invalid request: ") || !strings.HasSuffix(got, "}\n") {
				t.Errorf("%s:\n got %q", line, got)
			}
		}
		if info, _ := h.Agent(p); info.Found {
			t.Errorf("an invalid request changed the pane: %+v", info)
		}
	})
	t.Run("26_no_response_without_a_line", func(t *testing.T) {
		h := StartT(t, Options{})
		for name, raw := range map[string]string{
			"no_newline":   `{"id":"r1","method":"ping","params":{}}`,
			"empty_line":   "\n",
			"blank_line":   " \t\r\n",
			"nothing":      "",
			"over_1_MiB":   `{"id":"` + strings.Repeat("x", wire.MaxRequestLine) + `","method":"ping","params":{}}` + "\n",
			"not_utf8":     "{\"id\":\"\xff\",\"method\":\"ping\",\"params\":{}}\n",
			"report_no_nl": `{"id":"r1","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"s","agent":"a","state":"working"}}`,
		} {
			if got := exchange(t, h, raw); got != "" {
				t.Errorf("%s: got %q, want no response", name, got)
			}
		}
		if info, _ := h.Agent(p); info.Found {
			t.Errorf("a request without a line changed the pane: %+v", info)
		}
		// A line of exactly 1 MiB is read.
		id := strings.Repeat("y", wire.MaxRequestLine-len(`{"id":"","method":"ping","params":{}}`))
		if got := exchange(t, h, `{"id":"`+id+`","method":"ping","params":{}}`+"\n"); !strings.Contains(got, `"type":"pong"`) {
			t.Errorf("a 1 MiB line got %.80q", got)
		}
	})
	t.Run("a_client_that_does_not_read_is_dropped", func(t *testing.T) {
		// Herdr gives each write to a connection 5 s (STREAM_WRITE_TIMEOUT,
		// src/api/server.rs:31,159-161), then drops the connection.
		h := StartT(t, Options{})
		h.srv.mu.Lock()
		h.srv.writeTimeout = 20 * time.Millisecond
		h.srv.mu.Unlock()
		if err := h.SetFault(Fault{SpewBytes: 64 << 20}); err != nil {
			t.Fatal(err)
		}
		c := dialRaw(t, h)
		if _, err := io.WriteString(c, `{"id":"r1","method":"ping","params":{}}`+"\n"); err != nil {
			t.Fatal(err)
		}
		// Never read: the server's writes stall, time out, and the request
		// is logged as unanswered.
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if _, err := h.WaitCalls(ctx, func(calls []Call) bool { return len(calls) == 1 && calls[0].Exit == -1 }); err != nil {
			t.Fatalf("the server still writes to a client that does not read: %v", err)
		}
	})
	t.Run("26_a_slow_line_is_dropped", func(t *testing.T) {
		h := StartT(t, Options{})
		h.srv.mu.Lock()
		h.srv.lineTimeout = 20 * time.Millisecond // Herdr's is 5 s
		h.srv.mu.Unlock()
		c := dialRaw(t, h)
		// On a loaded machine the server may give up before the partial
		// line is even written: the write then finds the connection
		// closed, which is the drop this test is about.
		if _, err := io.WriteString(c, `{"id":"r1","method":"ping",`); err != nil && !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatal(err)
		}
		// Without the rest of the line the server gives up and closes.
		if got, _ := io.ReadAll(c); len(got) != 0 {
			t.Errorf("got %q, want the connection closed without a response", got)
		}
	})
	t.Run("26_a_trickled_line_is_dropped", func(t *testing.T) {
		// The line timeout bounds the whole line, not each read: a client
		// that sends a byte every 5 ms, each read finding one at once, is
		// dropped when the line's time is up.
		h := StartT(t, Options{})
		h.srv.mu.Lock()
		h.srv.lineTimeout = 20 * time.Millisecond
		h.srv.mu.Unlock()
		c := dialRaw(t, h)
		line := `{"id":"r1","method":"ping","params":{}}` + "\n" // 40 bytes: 200 ms at least
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for i := range len(line) {
			<-tick.C
			if _, err := io.WriteString(c, line[i:i+1]); err != nil {
				break // dropped already
			}
		}
		if got, _ := io.ReadAll(c); len(got) != 0 {
			t.Errorf("got %q, want the connection closed without a response", got)
		}
	})
}

// TestPong checks the ping answer of each version (CONTRACT §2.4,
// HERDR-0.9.md "Versions and protocol").
func TestPong(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    string
	}{
		{"", `{"id":"p","result":{"type":"pong","version":"0.8.2","protocol":20,"capabilities":{"live_handoff":true,"detached_server_daemon":false}}}` + "\n"},
		{Version093, `{"id":"p","result":{"type":"pong","version":"0.9.3","protocol":22,"capabilities":{"live_handoff":true,"detached_server_daemon":false}}}` + "\n"},
	} {
		t.Run("v"+tc.version, func(t *testing.T) {
			h := StartT(t, Options{Version: tc.version})
			if got := exchange(t, h, `{"id":"p","method":"ping","params":{}}`+"\n"); got != tc.want {
				t.Errorf("pong %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRequestsHandledInArrivalOrder sends concurrent sequenced reports on
// the socket: each is handled whole, one at a time, and the server numbers
// them in the order it took them (CONTRACT §2.1).
func TestRequestsHandledInArrivalOrder(t *testing.T) {
	h := StartT(t, Options{})
	const n = 24
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			seq := uint64(i + 1)
			req, _ := wire.NewRequest(fmt.Sprint("r", i), wire.MethodReportAgent, wire.ReportAgentParams{
				PaneID: p, Source: src, Agent: lbl, State: wire.StateWorking, Seq: &seq})
			if resp, err := wire.Do(t.Context(), h.Socket, req); err != nil || resp.Err() != nil {
				t.Errorf("report %d: %v %v", i, err, resp.Err())
			}
		})
	}
	wg.Wait()
	calls, err := h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != n {
		t.Fatalf("%d calls, want %d", len(calls), n)
	}
	// Replayed in arrival order, each report is applied exactly when its
	// seq is above every earlier one: the server handled them in the order
	// it numbered them, each whole.
	slices.SortFunc(calls, func(a, b Call) int { return a.Arrival - b.Arrival })
	var hwm uint64
	for i, c := range calls {
		seq, ok := c.Seq()
		if c.Transport != TransportSocket || c.Command != "pane report-agent" || c.Arrival != i+1 || !ok {
			t.Fatalf("call %+v", c)
		}
		if want := seq > hwm; c.Applied != want {
			t.Errorf("arrival %d, seq %d after a high-water mark of %d: applied %v, want %v", c.Arrival, seq, hwm, c.Applied, want)
		}
		hwm = max(hwm, seq)
	}
	if got, _ := h.HighWater(p, src); got != n {
		t.Errorf("high-water mark %d, want %d", got, n)
	}
}

// TestSocketCalls checks what the log records of a socket request, and
// that a CLI call and a socket call share one arrival order.
func TestSocketCalls(t *testing.T) {
	r := newRunner(t, Options{})
	r.ok(report(p, src, lbl, "working", "--seq", "5")...)
	sr := r.on(TransportSocket)
	sr.ok(report(p, src, lbl, "blocked", "--seq", "4")...) // stale: ok, ignored
	sr.want(serverErr("cli:request", "pane_not_found", "pane w9:p9 not found"), release("w9:p9", src, lbl)...)
	calls, err := r.h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Transport Transport
		Command   string
		Pane      string
		Arrival   int
		Exit      int
		Code      string
		Applied   bool
		Status    Status
		Seq       string
	}
	var got []summary
	for _, c := range calls {
		seq, _ := c.Flag("seq")
		got = append(got, summary{c.Transport, c.Command, c.Pane, c.Arrival, c.Exit, c.Code, c.Applied, c.Status, seq})
	}
	want := []summary{
		{TransportCLI, "pane report-agent", p, 2, 0, "", true, StatusWorking, "5"},
		{TransportSocket, "pane report-agent", p, 3, 0, "", false, StatusWorking, "4"},
		{TransportSocket, "pane release-agent", "w9:p9", 4, 1, "pane_not_found", false, "", ""},
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("calls (-got +want):\n%s", diff)
	}
	if c := calls[1]; c.PID != r.h.srv.selfPID || c.Args != nil || c.Env != nil || c.End.Before(c.Start) || !c.Handled.Equal(c.End) || c.Hung || c.Unfinished {
		t.Errorf("socket call %+v", c)
	}
}

// TestSocketFaults checks what each fault does to a socket client.
func TestSocketFaults(t *testing.T) {
	seq := func(n uint64) *uint64 { return &n }
	reportReq := func(state wire.AgentState, n uint64) wire.Request {
		req, _ := wire.NewRequest("r", wire.MethodReportAgent, wire.ReportAgentParams{PaneID: p, Source: src, Agent: lbl, State: state, Seq: seq(n)})
		return req
	}
	for _, tc := range []struct {
		name  string
		fault Fault
		run   func(t *testing.T, h *Herdr)
	}{
		{"server_not_running", Fault{ServerNotRunning: true}, func(t *testing.T, h *Herdr) {
			if _, err := wire.Do(t.Context(), h.Socket, reportReq(wire.StateWorking, 1)); !errors.Is(err, wire.ErrNotRunning) {
				t.Fatalf("Do = %v, want ErrNotRunning", err)
			}
			if err := h.SetFault(Fault{}); err != nil {
				t.Fatal(err)
			}
			if resp, err := wire.Do(t.Context(), h.Socket, reportReq(wire.StateWorking, 1)); err != nil || resp.Err() != nil {
				t.Fatalf("after the fault: %v %v", err, resp.Err())
			}
		}},
		{"protocol_mismatch", Fault{ProtocolMismatch: 19}, func(t *testing.T, h *Herdr) {
			pong, err := wire.Ping(t.Context(), h.Socket)
			if err != nil || pong.Protocol != 19 {
				t.Fatalf("Ping = %+v, %v", pong, err)
			}
			// The server does not check protocols; only Herdr's CLI does.
			if resp, err := wire.Do(t.Context(), h.Socket, reportReq(wire.StateWorking, 1)); err != nil || resp.Err() != nil {
				t.Fatalf("report: %v %v", err, resp.Err())
			}
		}},
		{"fail_first", Fault{FailFirst: 1}, func(t *testing.T, h *Herdr) {
			resp, err := wire.Do(t.Context(), h.Socket, reportReq(wire.StateWorking, 1))
			if err != nil || resp.Error == nil || resp.Error.Code != wire.CodeServerUnavailable {
				t.Fatalf("first report: %+v %v", resp, err)
			}
			if _, ok := h.HighWater(p, src); ok {
				t.Error("a failed report consumed a seq")
			}
			if resp, err := wire.Do(t.Context(), h.Socket, reportReq(wire.StateWorking, 1)); err != nil || resp.Err() != nil {
				t.Fatalf("second report: %v %v", err, resp.Err())
			}
		}},
		{"garbage", Fault{Garbage: true}, func(t *testing.T, h *Herdr) {
			if _, err := wire.Do(t.Context(), h.Socket, reportReq(wire.StateWorking, 1)); !errors.Is(err, wire.ErrMalformedResponse) {
				t.Fatalf("Do = %v, want ErrMalformedResponse", err)
			}
			if info, _ := h.Agent(p); info.Found {
				t.Error("a request answered with garbage was applied")
			}
		}},
		{"spew", Fault{SpewBytes: 1 << 20}, func(t *testing.T, h *Herdr) {
			if _, err := wire.Do(t.Context(), h.Socket, reportReq(wire.StateWorking, 1)); !errors.Is(err, wire.ErrResponseTooLarge) {
				t.Fatalf("Do = %v, want ErrResponseTooLarge", err)
			}
			if info, _ := h.Agent(p); info.AgentStatus != StatusWorking {
				t.Errorf("status %q: the request is handled, only its answer is buried", info.AgentStatus)
			}
		}},
		{"sleep", Fault{SleepMs: 30}, func(t *testing.T, h *Herdr) {
			if resp, err := wire.Do(t.Context(), h.Socket, reportReq(wire.StateWorking, 1)); err != nil || resp.Err() != nil {
				t.Fatalf("report: %v %v", err, resp.Err())
			}
			calls, _ := h.Calls()
			if len(calls) != 1 || calls[0].Exit != 0 {
				t.Fatalf("calls %+v", calls)
			}
		}},
		{"hang", Fault{Hang: true}, func(t *testing.T, h *Herdr) {
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := wire.Do(ctx, h.Socket, reportReq(wire.StateWorking, 1))
				done <- err
			}()
			calls, err := h.WaitCalls(t.Context(), func(calls []Call) bool { return len(calls) == 1 && calls[0].Hung })
			if err != nil {
				t.Fatal(err)
			}
			if c := calls[0]; c.Transport != TransportSocket || !c.Unfinished || c.Exit != -1 || !c.End.IsZero() || c.Command != "pane report-agent" {
				t.Errorf("hung call %+v", c)
			}
			// The hung connection holds up nobody.
			if err := h.SetFault(Fault{}); err != nil {
				t.Fatal(err)
			}
			if resp, err := wire.Do(t.Context(), h.Socket, reportReq(wire.StateBlocked, 2)); err != nil || resp.Err() != nil {
				t.Fatalf("report during the hang: %v %v", err, resp.Err())
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("hung Do = %v, want context.Canceled", err)
			}
			if info, _ := h.Agent(p); info.AgentStatus != StatusBlocked {
				t.Errorf("status %q, want blocked: the hung request was applied or the next one lost", info.AgentStatus)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := StartT(t, Options{})
			if err := h.SetFault(tc.fault); err != nil {
				t.Fatal(err)
			}
			tc.run(t, h)
		})
	}
}

// TestStopServerClosesConnections: a restart drops a hung connection and
// forgets the state; the socket is gone until the server starts again.
func TestStopServerClosesConnections(t *testing.T) {
	h := StartT(t, Options{})
	if err := h.SetFault(Fault{Hang: true}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := wire.Do(t.Context(), h.Socket, wire.Request{ID: "x", Method: wire.MethodPing})
		done <- err
	}()
	if _, err := h.WaitCalls(t.Context(), func(c []Call) bool { return len(c) == 1 }); err != nil {
		t.Fatal(err)
	}
	if err := h.StopServer(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, wire.ErrEmptyResponse) {
		t.Errorf("hung Do after StopServer = %v, want ErrEmptyResponse", err)
	}
	if _, err := wire.Ping(t.Context(), h.Socket); !errors.Is(err, wire.ErrNotRunning) {
		t.Errorf("Ping while stopped = %v, want ErrNotRunning", err)
	}
	if err := errors.Join(h.SetFault(Fault{}), h.StartServer()); err != nil {
		t.Fatal(err)
	}
	if _, err := wire.Ping(t.Context(), h.Socket); err != nil {
		t.Errorf("Ping after StartServer: %v", err)
	}
}
