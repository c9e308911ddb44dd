package herdr

import (
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
)

// TestDetachedAdapterDoesNotTakeThePaneBack: two registries of one process
// on one pane. The older one's Detach withdrew its report in flight, the
// report landed, and the release did not follow (its budget ran out: the
// adapter is left unreleased until the next Detach). The older adapter
// must not take the pane back once a newer one has released it: the host
// that owns it has stopped reporting. Its pane watch ends, and no take-back
// is sent.
func TestDetachedAdapterDoesNotTakeThePaneBack(t *testing.T) {
	forTransports(t, testDetachedAdapterDoesNotTakeThePaneBack)
}

func testDetachedAdapterDoesNotTakeThePaneBack(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{InView: []string{"w1:p1"}})
	older := f.open(t)
	back := make(chan struct{}, 1)
	onTakeBack(t, older, func() { back <- struct{}{} })

	// The registry's Detach: the report in flight is withdrawn, and is
	// waited for because it has left.
	hold := f.h.Hold()
	ctx, withdraw := adapter.WithWithdraw(t.Context())
	done := make(chan error, 1)
	go func() { done <- older.Report(ctx, working) }()
	if err := hold.Held(t.Context(), 1); err != nil {
		hold.Resume()
		t.Fatal(err)
	}
	withdraw()
	hold.Resume()
	if err := <-done; err != nil {
		t.Fatalf("withdrawn Report in flight = %v, want it delivered", err)
	}
	// No Release: the budget ran out. The pane watch ends.
	testenv.WaitNoGoroutineIn(t, "owner.(*Owner).watch")

	newer := f.open(t)
	if err := newer.Report(t.Context(), idle); err != nil {
		t.Fatal(err)
	}
	if err := newer.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := newer.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	// No watch of the older adapter is left to call its OnFree.
	select {
	case <-back:
		t.Fatal("the detached adapter took the pane back")
	default:
	}
	if info, _ := f.h.Agent("w1:p1"); info.Found {
		t.Errorf("after the newer adapter released the pane it shows %+v, want it released", info)
	}
}
