package registry

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// controlRegistry is a registry whose transitions a test drives directly,
// without adapters or goroutines.
func controlRegistry(t *testing.T) *Registry {
	t.Helper()
	r, err := New(testOptions(t, register(&fakeDriver{def: true})))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *Registry) attachmentNow() attachment {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attachment
}

// A Detach that begins while an Attach is in progress preempts it: the
// Attach's generation is no longer current, so nothing it builds is kept,
// its end does not make the registry attached, and a settings change for
// that attachment never begins.
func TestControlDetachPreemptsAnAttach(t *testing.T) {
	r := controlRegistry(t)
	o, already, err := r.beginAttach(t.Context(), session.NewStore())
	if err != nil || already {
		t.Fatalf("beginAttach: %v, already %t", err, already)
	}
	if got := r.attachmentNow(); got != attachmentAttaching {
		t.Fatalf("attachment %d, want attaching", got)
	}
	p, ok, err := r.beginDetach(t.Context(), time.Now())
	if err != nil || !ok {
		t.Fatalf("beginDetach: %v, %t", err, ok)
	}
	if o.ctx.Err() == nil {
		t.Error("the Attach's ctx was not cancelled by the Detach")
	}
	if r.ifCurrent(o.gen, func() {}) {
		t.Error("the preempted Attach could still hand over what it built")
	}
	r.endOp(o, attachmentAttaching)
	if got := r.attachmentNow(); got != attachmentDetaching {
		t.Errorf("after the preempted Attach ended: attachment %d, want detaching", got)
	}
	if _, ok := r.beginApply(o.gen); ok {
		t.Error("a settings change began for a preempted attachment")
	}
	r.endDetach(p)
	if got := r.attachmentNow(); got != attachmentDetached {
		t.Errorf("after Detach: attachment %d, want detached", got)
	}
	if _, ok, _ := r.beginDetach(t.Context(), time.Now()); ok {
		t.Error("a second Detach found something to detach")
	}
}

// A settings change begins only on an attached registry, one at a time
// with the Attach of its generation; its end returns to attached.
func TestControlSettingsChangeFollowsItsAttach(t *testing.T) {
	r := controlRegistry(t)
	if _, ok := r.beginApply(0); ok {
		t.Error("a settings change began on a detached registry")
	}
	o, _, err := r.beginAttach(t.Context(), session.NewStore())
	if err != nil {
		t.Fatal(err)
	}
	began := make(chan op)
	go func() {
		a, _ := r.beginApply(o.gen) // waits for the Attach to end
		began <- a
	}()
	r.endOp(o, attachmentAttaching)
	a := <-began
	if a.done == nil {
		t.Fatal("the settings change did not begin once the Attach ended")
	}
	if got := r.attachmentNow(); got != attachmentApplying {
		t.Errorf("attachment %d, want applying", got)
	}
	r.endOp(a, attachmentApplying)
	if got := r.attachmentNow(); got != attachmentAttached {
		t.Errorf("attachment %d, want attached", got)
	}
	if _, already, err := r.beginAttach(t.Context(), session.NewStore()); err != nil || !already {
		t.Errorf("a second Attach on an attached registry: %v, already %t; want it found attached", err, already)
	}
}

// Every live worker is retired by beginDetach with a release, whatever
// fate it was waiting for: one replaced by a successor that never started
// (undecided) is released, one already handed over keeps its close.
func TestControlDetachDecidesEveryFate(t *testing.T) {
	r := controlRegistry(t)
	o, _, err := r.beginAttach(t.Context(), session.NewStore())
	if err != nil {
		t.Fatal(err)
	}
	s := r.entries[0]
	a := &fakeAdapter{}
	running := newWorker(r, s, a, nil, o.gen, nil)
	swapped := newWorker(r, s, a, nil, o.gen, nil)
	handedOver := newWorker(r, s, a, nil, o.gen, nil)
	r.mu.Lock()
	for _, w := range []*worker{running, swapped, handedOver} {
		r.live[w] = struct{}{}
	}
	r.mu.Unlock()
	swapped.stop(fateUndecided, time.Now())
	handedOver.stop(fateClose, time.Now())
	p, ok, err := r.beginDetach(t.Context(), time.Now())
	if err != nil || !ok {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		w    *worker
		want fate
	}{
		{"running", running, fateRelease},
		{"replaced, successor never started", swapped, fateRelease},
		{"handed over to a running successor", handedOver, fateClose},
	} {
		select {
		case <-tt.w.decided:
		default:
			t.Errorf("%s: fate not decided", tt.name)
			continue
		}
		if tt.w.fate != tt.want {
			t.Errorf("%s: fate %d, want %d", tt.name, tt.w.fate, tt.want)
		}
		select {
		case <-tt.w.stopc:
		default:
			t.Errorf("%s: not stopped", tt.name)
		}
	}
	r.mu.Lock()
	r.live = map[*worker]struct{}{}
	r.mu.Unlock()
	r.endDetach(p)
}

// After a reopen, the successor makes no call before its predecessor has
// returned from the report it had sent and has closed: their calls for
// the pane never cross, and the old one is closed without a release.
func TestSuccessorWaitsForItsPredecessor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log := &eventLog{}
		d := &fakeDriver{def: true, tag: "h", events: log, keys: []string{"color"}}
		r, store, old := attachedDriver(t, d)
		name := r.entries[0].name
		answer := make(chan struct{})
		old.ignoreCtx.Store(true) // a sent request: only its answer ends it
		old.setBlock(answer)
		store.AgentStart()
		old.inReport(t)
		go func() {
			time.Sleep(200 * time.Millisecond)
			log.add("answered h0")
			close(answer)
		}()
		start := time.Now()
		applySettings(t, r, `{"`+name+`": {"color": "green"}}`)
		succ := d.adapters()[1]
		succ.inReport(t)
		if took := time.Since(start); took != 200*time.Millisecond {
			t.Errorf("the successor's first call came %v after the swap, want after the predecessor's answer (200ms)", took)
		}
		want := []string{"open h0", "open h1", "answered h0", "close h0"}
		if diff := cmp.Diff(log.all(), want); diff != "" {
			t.Errorf("events before the successor's first call (-got +want):\n%s", diff)
		}
		if old.releases() != 0 {
			t.Errorf("the replaced adapter was released %d times, want 0: the successor holds the pane", old.releases())
		}
	})
}

// Every hand-over of what an operation built is a named transition that
// refuses once a Detach has preempted the operation: the subscription and
// the watcher stay with the operation (to undo itself), and an entry keeps
// the state the Detach gave it.
func TestControlAPreemptedOperationHandsOverNothing(t *testing.T) {
	for _, tt := range []struct {
		name string
		// handOver tries the transition for generation gen and reports
		// whether it was kept.
		handOver func(r *Registry, gen uint64) bool
	}{
		{"subscription", func(r *Registry, gen uint64) bool { return r.holdSubscription(gen, func() {}) }},
		{"settings", func(r *Registry, gen uint64) bool { return r.useSettings(gen, r.cur) }},
		{"entry facts", func(r *Registry, gen uint64) bool {
			_, ok := r.entryFacts(gen, r.entries[0], true, settings.LayerDefault, view{})
			return ok
		}},
		{"entry lifecycle", func(r *Registry, gen uint64) bool {
			r.settle(gen, r.entries[0], LifecycleOpenFailed, "bad", view{})
			_, ok := r.lifeOf(gen, r.entries[0])
			return ok || r.entries[0].life == LifecycleOpenFailed
		}},
		{"idle subscription", func(r *Registry, gen uint64) bool {
			_, ok := r.dropIdleSubscription(gen)
			return ok
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := controlRegistry(t)
			o, _, err := r.beginAttach(t.Context(), session.NewStore())
			if err != nil {
				t.Fatal(err)
			}
			if !tt.handOver(r, o.gen) {
				t.Fatal("the current Attach could not hand over")
			}
			p, ok, err := r.beginDetach(t.Context(), time.Now())
			if err != nil || !ok {
				t.Fatalf("beginDetach: %v, %t", err, ok)
			}
			if tt.handOver(r, o.gen) {
				t.Error("the preempted Attach could still hand over")
			}
			r.endOp(o, attachmentAttaching)
			r.endDetach(p)
			if r.unsubscribe != nil || r.watcher != nil {
				t.Error("the detached registry holds a subscription or a watcher")
			}
		})
	}
}
