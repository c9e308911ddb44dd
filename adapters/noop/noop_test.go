package noop_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/adapters/noop"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/internal/testenv"
	"github.com/panestate/panestate/session"
)

// TestMain clears every HERDR_* variable, so that a developer running the
// tests inside a real Herdr pane is safe, and checks for leaked goroutines
// (the conformance suite starts some).
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}

// TestConformance is the test every adapter has: the contract, checked by
// adaptertest.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, func(t *testing.T) adapter.Adapter {
		a, err := noop.Driver{}.Open(t.Context(), adapter.Params{Name: "noop"})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return a
	})
}

func TestZeroAdapterConformance(t *testing.T) {
	adaptertest.Run(t, func(*testing.T) adapter.Adapter { return new(noop.Adapter) })
}

func TestDriver(t *testing.T) {
	def, got := optional.Settings(noop.Driver{})
	if def {
		t.Error("the no-op adapter is enabled by default; it must be off unless selected")
	}
	if len(got) != 1 || got[0] != "enabled" {
		t.Errorf("settings keys = %q; want only enabled", got)
	}
	// Open honours nothing from the environment or the host.
	params := []adapter.Params{
		{},
		{Name: "noop", Env: adapter.Env{"HERDR_ENV=1"}, Host: session.Host{Root: true}},
	}
	for _, p := range params {
		a, err := noop.Driver{}.Open(t.Context(), p)
		if err != nil || a == nil {
			t.Errorf("Open(%+v) = %v, %v; want an adapter", p, a, err)
		}
	}
}

func TestAdapterAfterClose(t *testing.T) {
	ctx := t.Context()
	a := new(noop.Adapter)
	for range 2 {
		if err := a.Close(ctx); err != nil {
			t.Fatalf("Close = %v", err)
		}
	}
	r := adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent}
	if err := a.Report(ctx, r); !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Report after Close = %v; want ErrClosed", err)
	}
	if err := a.Release(ctx); !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Release after Close = %v; want ErrClosed", err)
	}
}

func TestReportAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	r := adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}
	open := new(noop.Adapter)
	closed := new(noop.Adapter)
	_ = closed.Close(ctx)
	for name, a := range map[string]*noop.Adapter{"open": open, "closed": closed} {
		if n := testing.AllocsPerRun(100, func() { _ = a.Report(ctx, r) }); n != 0 {
			t.Errorf("%s: Report allocates %v times per call; want 0", name, n)
		}
	}
}

func BenchmarkReport(b *testing.B) {
	ctx := context.Background()
	a := new(noop.Adapter)
	r := adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}
	b.ReportAllocs()
	for b.Loop() {
		_ = a.Report(ctx, r)
	}
}

// TestDriverAgreesWithOpen: the template applies everywhere, and has no
// Check for RunDriver to compare; its Open starts nothing either way.
func TestDriverAgreesWithOpen(t *testing.T) {
	adaptertest.RunDriver(t, noop.Driver{}, map[string]adapter.Params{"anywhere": {Name: "noop"}})
}
