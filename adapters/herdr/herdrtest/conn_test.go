package herdrtest

import (
	"bufio"
	"context"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// watchDeadlines sets h's server to report the deadlines connections set,
// the first 64, and returns where they arrive (true a read deadline, false
// a write deadline).
func watchDeadlines(h *Herdr, line, write time.Duration) <-chan bool {
	set := make(chan bool, 64)
	h.srv.mu.Lock()
	h.srv.onDeadline = func(read bool) {
		select {
		case set <- read:
		default: // a writer that keeps waiting is not held up here
		}
	}
	if line > 0 {
		h.srv.lineTimeout = line
	}
	if write > 0 {
		h.srv.writeTimeout = write
	}
	h.srv.mu.Unlock()
	return set
}

const pingLine = `{"id":"r1","method":"ping","params":{}}` + "\n"

// TestDeadlinesOnlyWhenWaiting checks that a connection sets its read and
// write deadlines (runtime timers) only when it must wait, and that the
// line timeout and the write timeout still fire when it does.
func TestDeadlinesOnlyWhenWaiting(t *testing.T) {
	t.Run("a_whole_line_and_a_short_answer_set_none", func(t *testing.T) {
		h := StartT(t, Options{})
		set := watchDeadlines(h, 0, 0)
		// Holding the server's lock keeps the connection from its first
		// read until the whole line is in the socket.
		h.srv.mu.Lock()
		c := dialRaw(t, h)
		_, err := io.WriteString(c, pingLine)
		h.srv.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(c)
		if len(got) == 0 {
			t.Fatal("no answer")
		}
		var deadlines []bool
		for len(set) > 0 {
			deadlines = append(deadlines, <-set)
		}
		// Where a socket cannot be read or written without waiting
		// (rawConn is nil: Windows), every request sets both.
		want := []bool(nil)
		if runtime.GOOS == "windows" {
			want = []bool{true, false}
		}
		if diff := cmp.Diff(deadlines, want); diff != "" {
			t.Errorf("deadlines set, true for a read (-got +want):\n%s", diff)
		}
	})
	t.Run("a_line_in_two_parts_is_read_to_its_end_with_the_deadline", func(t *testing.T) {
		h := StartT(t, Options{})
		set := watchDeadlines(h, 0, 0)
		c := dialRaw(t, h)
		if _, err := io.WriteString(c, pingLine[:10]); err != nil {
			t.Fatal(err)
		}
		if read := <-set; !read {
			t.Fatal("a write deadline before the line was read")
		}
		if _, err := io.WriteString(c, pingLine[10:]); err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(c)
		if want := `{"id":"r1","result":{"type":"pong","version":"0.8.2","protocol":20,"capabilities":{"live_handoff":true,"detached_server_daemon":false}}}` + "\n"; string(got) != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("a_client_that_sends_nothing_is_dropped_at_the_line_timeout", func(t *testing.T) {
		h := StartT(t, Options{})
		set := watchDeadlines(h, 20*time.Millisecond, 0) // Herdr's is 5 s
		c := dialRaw(t, h)
		if read := <-set; !read {
			t.Fatal("a write deadline before any line")
		}
		if got, _ := io.ReadAll(c); len(got) != 0 {
			t.Errorf("got %q, want the connection closed without a response", got)
		}
		if n := len(h.srv.snapshot()); n != 0 {
			t.Errorf("%d requests recorded, want none", n)
		}
	})
	t.Run("an_answer_the_client_does_not_read_times_out", func(t *testing.T) {
		h := StartT(t, Options{})
		set := watchDeadlines(h, 0, 20*time.Millisecond) // Herdr's is 5 s
		if err := h.SetFault(Fault{SpewBytes: 64 << 20}); err != nil {
			t.Fatal(err)
		}
		h.srv.mu.Lock() // the whole line before the first read, as above
		c := dialRaw(t, h)
		_, err := io.WriteString(c, pingLine)
		h.srv.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if read := <-set; read && runtime.GOOS != "windows" {
			t.Fatal("a read deadline for a line that was all there")
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if _, err := h.WaitCalls(ctx, func(calls []Call) bool { return len(calls) == 1 && calls[0].Exit == -1 }); err != nil {
			t.Fatalf("the server still writes to a client that does not read: %v", err)
		}
	})
}

// TestConnectionsAreReadApart serves connections one after the other with
// one connection goroutine's reader, as a worker does, each with bytes
// after its line or an unfinished one: no byte of one connection is read
// as part of another.
func TestConnectionsAreReadApart(t *testing.T) {
	h := StartT(t, Options{})
	var rr requestReader
	rr.br = bufio.NewReaderSize(&rr.lr, 4096)
	lim := limits{line: time.Minute, write: time.Minute}
	quit := make(chan struct{})
	defer close(quit)
	for i, tc := range []struct{ send, want string }{
		{`{"id":"a","method":"ping","params":{}}` + "\n" + `{"id":"tail","method":"pi`, `{"id":"a",`},
		{`{"id":"b","method":"ping","params":{}}` + "\n", `{"id":"b",`},
		{`{"id":"c","method":"ping","pa`, ""},
		// Alone, not JSON: an invalid request.
		{`rams":{}}` + "\n", `{"id":"","error":{"code":"invalid_request"`},
		{`{"id":"d","method":"ping","params":{}}` + "\n\n\n", `{"id":"d",`},
	} {
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.srv.serve(server, quit, lim, &rr)
		}()
		if _, err := io.WriteString(client, tc.send); err != nil {
			t.Fatal(err)
		}
		if tc.want == "" {
			client.Close() // the line never ends
		}
		got, _ := io.ReadAll(client)
		<-done
		client.Close()
		if !strings.HasPrefix(string(got), tc.want) || tc.want == "" && len(got) > 0 {
			t.Errorf("request %d: got %q, want an answer starting %q", i, got, tc.want)
		}
	}
	var lines []string
	for _, r := range h.srv.snapshot() {
		lines = append(lines, string(r.line))
	}
	want := []string{`{"id":"a","method":"ping","params":{}}`, `{"id":"b","method":"ping","params":{}}`, `rams":{}}`,
		`{"id":"d","method":"ping","params":{}}`}
	if diff := cmp.Diff(lines, want); diff != "" {
		t.Errorf("lines received (-got +want):\n%s", diff)
	}
}
