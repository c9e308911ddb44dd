package herdr

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
)

// TestWithdrawnReportInFlightIsWaitedFor acts the registry's part at Detach
// (issue 21): the report in flight is held by the emulated server (it has
// left the process: the CLI runs, the socket is written), then withdrawn.
// Report keeps waiting until Herdr answers, so the release is sent only
// after the report was applied, and the pane ends released, every time.
func TestWithdrawnReportInFlightIsWaitedFor(t *testing.T) {
	forTransports(t, testWithdrawnReportInFlightIsWaitedFor)
}

func testWithdrawnReportInFlightIsWaitedFor(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	a := f.open(t)
	// What is tested is the order of the report and the release, not the
	// release's budget: a CLI release of the race-built fake on a loaded
	// machine may take longer than MaxReleaseTimeout.
	setMaxRelease(t, time.Minute)
	for i := range testenv.Iterations(50) {
		r := working
		if i%2 == 1 {
			r = blocked
		}
		hold := f.h.Hold()
		ctx, withdraw := adapter.WithWithdraw(t.Context())
		done := make(chan error, 1)
		go func() { done <- a.Report(ctx, r) }()
		if err := hold.Held(t.Context(), 1); err != nil {
			hold.Resume()
			t.Fatal(err)
		}
		withdraw()
		select {
		case err := <-done:
			hold.Resume()
			t.Fatalf("iteration %d: Report returned %v on withdrawal while Herdr still held its request", i, err)
		default:
		}
		hold.Resume()
		if err := <-done; err != nil {
			t.Fatalf("iteration %d: withdrawn Report in flight = %v, want it waited for and delivered", i, err)
		}
		if err := a.Release(t.Context()); err != nil {
			t.Fatalf("iteration %d: Release = %v", i, err)
		}
		if info, err := f.h.Agent(f.h.Pane); err != nil || info.Found {
			t.Fatalf("iteration %d: after the release the pane shows %+v (%v), want it released", i, info, err)
		}
		calls := f.calls(t)
		if len(calls) < 2 {
			t.Fatalf("iteration %d: calls %+v", i, calls)
		}
		rep, rel := calls[len(calls)-2], calls[len(calls)-1]
		if rep.Command != "pane report-agent" || rel.Command != "pane release-agent" || !rel.Start.After(rep.Handled) {
			t.Fatalf("iteration %d: last calls %s (handled %v), %s (sent %v): want the release sent after the report was handled",
				i, rep.Command, rep.Handled, rel.Command, rel.Start)
		}
		f.skip = rel.Arrival
	}
}

// TestWithdrawnBeforeSendIsDropped: a report withdrawn before any of it has
// left the process is not sent and Report returns ErrWithdrawn at once:
// withdrawn before the call (no CLI started, nothing dialled), or while it
// waits for another call on the pane that Herdr holds.
func TestWithdrawnBeforeSendIsDropped(t *testing.T) {
	forTransports(t, func(t *testing.T, transport string) {
		t.Run("before the call", func(t *testing.T) {
			f := newFixtureOn(t, transport, herdrtest.Options{})
			a := f.open(t)
			ctx, withdraw := adapter.WithWithdraw(t.Context())
			withdraw()
			if err := a.Report(ctx, working); !errors.Is(err, adapter.ErrWithdrawn) {
				t.Fatalf("Report = %v, want ErrWithdrawn", err)
			}
			if calls := f.allCalls(t); len(calls) != 0 {
				t.Errorf("a withdrawn report made calls %+v", calls)
			}
			if d := f.diags.all(); len(d) != 0 {
				t.Errorf("a withdrawn report emitted %v", d)
			}
		})
		t.Run("waiting for a held call", func(t *testing.T) {
			f := newFixtureOn(t, transport, herdrtest.Options{})
			a := f.open(t)
			hold := f.h.Hold()
			defer hold.Resume()
			first := make(chan error, 1)
			go func() { first <- a.Report(context.Background(), working) }()
			if err := hold.Held(t.Context(), 1); err != nil {
				t.Fatal(err)
			}
			ctx, withdraw := adapter.WithWithdraw(t.Context())
			second := make(chan error, 1)
			go func() { second <- a.Report(ctx, blocked) }()
			withdraw()
			if err := <-second; !errors.Is(err, adapter.ErrWithdrawn) {
				t.Fatalf("the waiting Report = %v, want ErrWithdrawn", err)
			}
			select {
			case err := <-first:
				t.Fatalf("the held Report returned %v before Herdr answered", err)
			default:
			}
			hold.Resume()
			if err := <-first; err != nil {
				t.Fatalf("the held Report = %v", err)
			}
			var reports int
			for _, c := range f.calls(t) {
				if c.Command == "pane report-agent" {
					reports++
				}
			}
			if reports != 1 {
				t.Errorf("%d reports reached Herdr, want only the held one", reports)
			}
			if info, _ := f.h.Agent(f.h.Pane); info.AgentStatus != "working" {
				t.Errorf("pane shows %+v, want the held report's working", info)
			}
		})
	})
}
