package registry

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// throttled attaches a registry with one fake adapter and the throttle on,
// and waits until the state at Attach is delivered.
func throttled(t *testing.T) (*Registry, *session.Store, *fakeAdapter) {
	t.Helper()
	d := &fakeDriver{def: true}
	r := mustNew(t, testOptions(t, register(d)))
	r.window = throttleWindow
	store := session.NewStore()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	a := d.adapters()[0]
	a.next(t)
	return r, store, a
}

// A change after a quiet window goes out at once.
func TestThrottleSendsAChangeAfterAQuietWindowAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, store, a := throttled(t)
		time.Sleep(throttleWindow)
		start := time.Now()
		store.AgentStart()
		if got := a.next(t); got != working {
			t.Errorf("delivered %v, want working", got)
		}
		if took := time.Since(start); took != 0 {
			t.Errorf("delivered after %v, want at once", took)
		}
	})
}

// Changes inside the window merge: the newest goes out when the window
// ends, and nothing else.
func TestThrottleMergesChangesInsideTheWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := throttled(t)
		start := time.Now() // the state at Attach went out now
		store.AgentStart()
		time.Sleep(10 * time.Millisecond)
		store.AgentSettled()
		time.Sleep(10 * time.Millisecond)
		store.PromptStart("p", session.PromptApproval)
		if got := a.next(t); got != blocked {
			t.Errorf("delivered %v, want the newest, blocked", got)
		}
		if took := time.Since(start); took != throttleWindow {
			t.Errorf("delivered %v after the last delivery, want at the end of the window, %v", took, throttleWindow)
		}
		synctest.Wait()
		if n := r.Explain().Adapters[0].Counters.Delivered; n != 2 {
			t.Errorf("delivered %d reports, want 2: the state at Attach and the newest", n)
		}
	})
}

// At any change rate the adapter gets at most one delivery per window.
func TestThrottleBoundsTheDeliveryRate(t *testing.T) {
	for _, every := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond} {
		t.Run(every.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := &fakeDriver{def: true, discard: true}
				r := mustNew(t, testOptions(t, register(d)))
				r.window = throttleWindow
				store := session.NewStore()
				if err := r.Attach(t.Context(), store); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				for i := range int(time.Second / every) {
					if i%2 == 0 {
						store.AgentStart()
					} else {
						store.AgentSettled()
					}
					time.Sleep(every)
				}
				time.Sleep(throttleWindow)
				synctest.Wait()
				// One second of changes: the state at Attach, then at most one
				// per window, plus the last one.
				most := uint64(1 + time.Second/throttleWindow + 1)
				if n := d.adapters()[0].calls.Load(); uint64(n) > most {
					t.Errorf("%d Report calls in a second of changes every %v, want at most %d", n, every, most)
				}
				last := adapter.Report(idle)
				if int(time.Second/every)%2 == 1 {
					last = working
				}
				if got := r.Explain().Adapters[0].LastReport; got == nil || *got != last {
					t.Errorf("last delivered %v, want the newest state %v", got, last)
				}
			})
		})
	}
}
