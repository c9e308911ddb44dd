//go:build linux || darwin

package probe_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/panestate/panestate/adapters/progstatus/probe"
)

// How a fake terminal answers the probe.
const (
	answersQuery = "\x1b]7501;?\x1b\\" + "\x1b[?62;22c" // iTerm2 as its tests show it, then DA1
	answersDA1   = "\x1b[?62;22c"                       // a VT220-class terminal without OSC 7501
	answersNone  = ""                                   // not a terminal that answers anything
)

// fakeTerminal is the terminal side of a pty: it answers each complete
// probe query it reads with answer. Its goroutine ends when the pty is
// closed (stop).
type fakeTerminal struct {
	ptmx, tty *os.File
	done      chan struct{}
}

func newFakeTerminal(t testing.TB, answer string) *fakeTerminal {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty: %v", err)
	}
	f := &fakeTerminal{ptmx: ptmx, tty: tty, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		var seen []byte
		buf := make([]byte, 256)
		for {
			n, err := ptmx.Read(buf)
			if err != nil {
				return
			}
			seen = append(seen, buf[:n]...)
			for {
				i := bytes.Index(seen, []byte(probe.Query))
				if i < 0 {
					break
				}
				seen = seen[i+len(probe.Query):]
				if answer != "" {
					if _, err := ptmx.Write([]byte(answer)); err != nil {
						return
					}
				}
			}
		}
	}()
	t.Cleanup(f.stop)
	return f
}

func (f *fakeTerminal) stop() {
	f.tty.Close()
	f.ptmx.Close()
	<-f.done
}

// TestProbe runs the probe against a pty that answers the query, one that
// answers only DA1 and one that answers nothing, and checks the answer,
// that the terminal's mode is restored, and logs the time each took
// (docs/progstatus.md has the benchmark's figures; no time is asserted).
func TestProbe(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   probe.Answer
	}{
		{"answers the query", answersQuery, probe.Supported},
		{"answers only DA1", answersDA1, probe.Unsupported},
		{"answers nothing", answersNone, probe.NoAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeTerminal(t, tt.answer)
			before, err := termios(f.tty)
			if err != nil {
				t.Fatal(err)
			}
			res, err := probe.Run(t.Context(), f.tty.Name(), 300*time.Millisecond)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Answer != tt.want {
				t.Errorf("answer %v; want %v", res.Answer, tt.want)
			}
			after, err := termios(f.tty)
			if err != nil {
				t.Fatal(err)
			}
			if after != before {
				t.Errorf("the terminal's mode was not restored: %+v, was %+v", after, before)
			}
			t.Logf("%s: %v in %v", tt.name, res.Answer, res.Elapsed)
		})
	}
}

// TestProbeEndsWithCtx checks that a cancelled ctx ends a probe of a
// terminal that answers nothing, with ctx's error.
func TestProbeEndsWithCtx(t *testing.T) {
	f := newFakeTerminal(t, answersNone)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := probe.Run(ctx, f.tty.Name(), time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled ctx: %v", err)
	}
}

// TestProbeNotATerminal checks the error for a path that is no terminal.
func TestProbeNotATerminal(t *testing.T) {
	if _, err := probe.Run(t.Context(), os.DevNull, 0); err == nil {
		t.Error("probing /dev/null succeeded")
	}
}

// BenchmarkProbe measures one probe against each fake terminal, with the
// default wait: the time to the answer is the figure docs/progstatus.md
// quotes (ms/probe).
func BenchmarkProbe(b *testing.B) {
	for _, bb := range []struct{ name, answer string }{
		{"answers-query", answersQuery},
		{"answers-DA1-only", answersDA1},
		{"answers-nothing", answersNone},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			f := newFakeTerminal(b, bb.answer)
			var total time.Duration
			for b.Loop() {
				res, err := probe.Run(b.Context(), f.tty.Name(), 0)
				if err != nil {
					b.Fatal(err)
				}
				total += res.Elapsed
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/probe")
		})
	}
}
