package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

func TestRunRecorder(t *testing.T) {
	Run(t, func(t *testing.T) adapter.Adapter { return NewRecorder() })
}

func TestRunMinimalAdapter(t *testing.T) {
	Run(t, func(t *testing.T) adapter.Adapter { return minimal{} })
}

// fakeT records what a check reports, for running checks against adapters
// that must fail them. Fatalf and Skipf end the check's goroutine, as the
// testing package does.
type fakeT struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	failures []string
	skipped  bool
	cleanups []func()
}

func (f *fakeT) Helper()                  {}
func (f *fakeT) Context() context.Context { return f.ctx }

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, fmt.Sprintf(format, args...))
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

func (f *fakeT) Skipf(string, ...any) {
	f.mu.Lock()
	f.skipped = true
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeT) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

// runCheck runs c against adapters from open on a fake T and returns it once
// the check and its cleanups have finished.
func runCheck(c check, open func() adapter.Adapter) *fakeT {
	f := &fakeT{}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			f.cancel()
			for _, fn := range slices.Backward(f.cleanups) {
				runCleanup(fn)
			}
		}()
		c.run(f, open)
	}()
	<-done
	return f
}

// runCleanup runs fn on a goroutine of its own so that a Fatalf inside it
// ends only fn, as in the testing package.
func runCleanup(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
}

// quick is the suite used against broken adapters: a hang is detected in a
// fraction of a second instead of CallTimeout.
var quick = suite{timeout: 200 * time.Millisecond}

func TestChecksPassOrSkip(t *testing.T) {
	tests := []struct {
		name     string
		open     func() adapter.Adapter
		skipped  []string
		failures []string
	}{
		{
			name: "recorder",
			open: func() adapter.Adapter { return NewRecorder() },
		},
		{
			name:    "report only",
			open:    func() adapter.Adapter { return minimal{} },
			skipped: []string{"ReleaseWithoutReport", "CloseIdempotent", "ReportAfterClose", "ReleaseAfterClose", "SetSessionBeforeReport", "DetailsConcurrentWithReport"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var skipped []string
			// Adapters that pass: the full bound, so that a loaded machine
			// does not fail them (quick is for the broken ones below).
			full := suite{timeout: CallTimeout}
			for _, c := range full.checks() {
				f := runCheck(c, tt.open)
				if f.skipped {
					skipped = append(skipped, c.name)
				}
				if len(f.failures) > 0 {
					t.Errorf("%s failed: %q", c.name, f.failures)
				}
			}
			if diff := cmp.Diff(skipped, tt.skipped); diff != "" {
				t.Errorf("skipped checks (-got +want):\n%s", diff)
			}
		})
	}
}

// TestChecksCatchBrokenAdapters runs each check against an adapter that
// breaks its rule and expects the check to fail. (A Details that races with
// Report is not among them: the race detector would fail this test binary
// rather than the check.)
func TestChecksCatchBrokenAdapters(t *testing.T) {
	tests := []struct {
		check string
		open  func(t *testing.T) adapter.Adapter
	}{
		{"ReportEveryState", func(*testing.T) adapter.Adapter {
			return &broken{reject: func(r adapter.Report) bool { return r.State == adapter.StateBlocked }}
		}},
		{"ReportCancelledContext", func(t *testing.T) adapter.Adapter {
			return &broken{hangUntil: stopAtEnd(t)}
		}},
		{"ReportCancelledContext", func(*testing.T) adapter.Adapter {
			return &broken{wrongCtxErr: true}
		}},
		{"ReportSequence", func(*testing.T) adapter.Adapter {
			return &broken{reject: func(r adapter.Report) bool { return r.State == adapter.StateIdle }}
		}},
		{"ReleaseWithoutReport", func(*testing.T) adapter.Adapter { return &broken{failRelease: true} }},
		{"ReleaseThenClose", func(*testing.T) adapter.Adapter { return &broken{failRelease: true} }},
		{"CloseIdempotent", func(*testing.T) adapter.Adapter { return &broken{closeTwiceErr: true} }},
		{"ReportAfterClose", func(*testing.T) adapter.Adapter { return &broken{ignoreClose: true} }},
		{"ReleaseAfterClose", func(*testing.T) adapter.Adapter { return &broken{ignoreClose: true} }},
		{"SetSessionBeforeReport", func(*testing.T) adapter.Adapter { return &broken{failAfterSession: true} }},
		{"NoGoroutineLeftAfterClose", func(t *testing.T) adapter.Adapter {
			b := &broken{}
			stop := stopAtEnd(t)
			go func() { <-stop }() // the leak: nothing the adapter owns stops it
			return b
		}},
	}
	checks := map[string]check{}
	for _, c := range quick.checks() {
		checks[c.name] = c
	}
	for _, tt := range tests {
		t.Run(tt.check, func(t *testing.T) {
			c, ok := checks[tt.check]
			if !ok {
				t.Fatalf("no check named %q", tt.check)
			}
			f := runCheck(c, func() adapter.Adapter { return tt.open(t) })
			if f.skipped {
				t.Fatalf("%s skipped; want it to fail", tt.check)
			}
			if len(f.failures) == 0 {
				t.Fatalf("%s passed a broken adapter; want it to fail", tt.check)
			}
			t.Logf("%s failed as expected: %q", tt.check, f.failures)
		})
	}
}

// stopAtEnd returns a channel closed when the test ends, to end the
// goroutines a broken adapter leaves behind.
func stopAtEnd(t *testing.T) <-chan struct{} {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	return stop
}

// minimal implements only the required method.
type minimal struct{}

func (minimal) Report(context.Context, adapter.Report) error { return nil }

// broken implements every optional interface and breaks the rules it is
// told to.
type broken struct {
	reject           func(adapter.Report) bool
	hangUntil        <-chan struct{} // Report ignores ctx and waits for this
	wrongCtxErr      bool            // Report with a done ctx fails with an unrelated error
	failRelease      bool
	closeTwiceErr    bool
	ignoreClose      bool // Report and Release succeed after Close
	failAfterSession bool

	mu      sync.Mutex
	closed  bool
	session bool
}

var errBroken = errors.New("broken adapter")

func (b *broken) Report(ctx context.Context, r adapter.Report) error {
	if b.hangUntil != nil {
		<-b.hangUntil
	}
	if b.wrongCtxErr && ctx.Err() != nil {
		return errBroken
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed && !b.ignoreClose:
		return adapter.ErrClosed
	case b.reject != nil && b.reject(r), b.failAfterSession && b.session:
		return errBroken
	}
	return nil
}

func (b *broken) Release(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed && !b.ignoreClose:
		return adapter.ErrClosed
	case b.failRelease:
		return errBroken
	}
	return nil
}

func (b *broken) Close(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed && b.closeTwiceErr {
		return errBroken
	}
	b.closed = true
	return nil
}

func (b *broken) SetSession(session.Identity) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.session = true
}

func (b *broken) Details() map[string]string { return nil }
