//go:build linux || darwin

package progstatus_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/progstatus"
	"github.com/panestate/panestate/internal/optional"
)

// stopPTY stops tty's output as Ctrl-S does (XOFF, with IXON on), so that
// every write to it blocks until Ctrl-Q. The terminal's line discipline
// takes the XOFF asynchronously, so stopPTY writes single bytes with a
// short deadline until one is refused: from then on the output is stopped
// for certain. The deadline only ends the probing; no assertion is timed.
func stopPTY(t *testing.T, ptmx, tty *os.File) {
	t.Helper()
	if _, err := ptmx.Write([]byte{0x13}); err != nil { // XOFF
		t.Fatal(err)
	}
	for {
		if err := tty.SetWriteDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
			t.Fatalf("the pty takes no deadline: %v", err)
		}
		if _, err := tty.Write([]byte("x")); err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatal(err)
			}
			break
		}
	}
	if err := tty.SetWriteDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
}

// TestFullPTYDoesNotHangReport stops a real pty's output, as a terminal
// that stopped reading (or Ctrl-S) does: Report returns with ctx's error
// when ctx ends, not when the terminal reads again; once the terminal
// reads, the stalled sequence arrives whole, then the goodbye, never
// interleaved, and Close leaves no goroutine (TestMain checks).
func TestFullPTYDoesNotHangReport(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	// Raw mode on the pty, so the line discipline passes bytes as written,
	// with IXON kept for Ctrl-S and Ctrl-Q.
	if err := makeRaw(tty); err != nil {
		t.Fatal(err)
	}
	stopPTY(t, ptmx, tty)
	entered := &enteredWriter{w: tty, entered: make(chan struct{}, 4)}

	a, err := progstatus.Driver{}.Open(t.Context(), adapter.Params{
		Name: "progstatus", App: "mychat", Env: adapter.Env{"PANESTATE_PROGSTATUS=1"},
		Host: tuiRoot, Terminal: entered, Diagnose: func(adapter.Diagnostic) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	reported := make(chan error, 1)
	go func() { reported <- a.Report(ctx, working) }()
	<-entered.entered // the Write is under way, and blocked
	cancel()          // the registry's budget ran out
	if err := <-reported; !errors.Is(err, context.Canceled) {
		t.Fatalf("Report on a full pty after ctx ended: %v; want context.Canceled", err)
	}

	// A second Report waits for the stalled one, and is withdrawn while it
	// waits: nothing of it is written.
	wctx, withdraw := adapter.WithWithdraw(t.Context())
	withdraw()
	if err := a.Report(wctx, approval); !errors.Is(err, adapter.ErrWithdrawn) {
		t.Fatalf("Report withdrawn behind a stalled write: %v; want ErrWithdrawn", err)
	}

	// The terminal reads again (Ctrl-Q).
	if _, err := ptmx.Write([]byte{0x11}); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		var all bytes.Buffer
		_, _ = io.Copy(&all, ptmx) // until the pty is closed below
		got <- all.Bytes()
	}()
	if err := optional.Release(t.Context(), a); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := optional.Close(t.Context(), a); err != nil {
		t.Fatalf("Close: %v", err)
	}
	tty.Close()
	out := <-got
	ptmx.Close()
	seqs := strings.TrimLeft(string(out), "x")
	if diff := cmp.Diff(seqs, goldenWorking+goldenClear); diff != "" {
		t.Errorf("after the filler (-got +want):\n%s", diff)
	}
}

// enteredWriter says on entered each time a Write starts.
type enteredWriter struct {
	w       io.Writer
	entered chan struct{}
}

func (e *enteredWriter) Write(b []byte) (int, error) {
	select {
	case e.entered <- struct{}{}:
	default:
	}
	return e.w.Write(b)
}
