package herdr

import (
	"testing"
	"time"

	"github.com/panestate/panestate/internal/owner"
)

// onTakeBack calls f each time a's take-back has run, until the test ends.
func onTakeBack(t testing.TB, a *Adapter, f func()) {
	prev := testHooks.tookBack
	testHooks.tookBack = func(b *Adapter) {
		if b == a {
			f()
		} else if prev != nil {
			prev(b)
		}
	}
	t.Cleanup(func() { testHooks.tookBack = prev })
}

// onClaimed calls f each time a call of a has been decided within the
// process, before it waits for the pane; onTurn once no other call of the
// process is in flight on the pane. Until the test ends.
func onClaimed(t testing.TB, a *Adapter, f func()) { traceOwner(t, &owner.Trace.Claimed, a, f) }

func onTurn(t testing.TB, a *Adapter, f func()) { traceOwner(t, &owner.Trace.Turn, a, f) }

func traceOwner(t testing.TB, hook *func(*owner.Owner), a *Adapter, f func()) {
	prev := *hook
	*hook = func(o *owner.Owner) {
		if o == a.owner {
			f()
		} else if prev != nil {
			prev(o)
		}
	}
	t.Cleanup(func() { *hook = prev })
}

// setCallBudget sets testHooks.callBudget, and setMaxRelease
// testHooks.maxRelease, until the test ends (or the next call).
func setCallBudget(t testing.TB, d time.Duration) {
	prev := testHooks.callBudget
	testHooks.callBudget = d
	t.Cleanup(func() { testHooks.callBudget = prev })
}

func setMaxRelease(t testing.TB, d time.Duration) {
	prev := testHooks.maxRelease
	testHooks.maxRelease = d
	t.Cleanup(func() { testHooks.maxRelease = prev })
}
