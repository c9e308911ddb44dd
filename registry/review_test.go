package registry

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

func TestPanicInSetSessionStopsOnlyTheAdapter(t *testing.T) {
	r, store, a := attachedFake(t)
	a.panicIn.Store("SetSession")
	store.SetIdentity(session.Identity{ID: "s2"})
	waitFor(t, "the adapter stopped", func() bool { return r.Explain().Adapters[0].State == StatePanicked })
	waitFor(t, "the adapter closed", a.closed.Load)
	store.AgentStart() // the host goes on
	if got := r.Explain().Adapters[0].DiagnosticCounts["adapter_panic"]; got != 1 {
		t.Errorf("adapter_panic count %d, want 1", got)
	}
}

func TestPanicInExplainIsContained(t *testing.T) {
	d := &fakeDriver{def: true}
	r := mustNew(t, testOptions(t, register(d)))
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	a := d.adapters()[0]
	a.next(t)
	a.panicIn.Store("Explain")
	if e := r.Explain(); e.Adapters[0].Details != nil { // must not panic in the caller
		t.Errorf("details %v from a panicking Explain", e.Adapters[0].Details)
	}
	if got := r.Explain().Adapters[0].DiagnosticCounts["adapter_panic"]; got == 0 {
		t.Error("the panic in Explain was not recorded as adapter_panic")
	}
}

// A change published right after the adapter's first report is never lost,
// with the settings watcher running (the default inside a workspace).
func TestChangeDuringAttachIsDelivered(t *testing.T) {
	for i := range 20 {
		d := &fakeDriver{def: true}
		opts := testOptions(t, register(d))
		opts.StaticSettings = false
		r := mustNew(t, opts)
		store := session.NewStore()
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		store.AgentStart()
		a := d.adapters()[0]
		for {
			if got := a.next(t); got.State == adapter.StateWorking {
				break
			}
		}
		if err := r.Detach(t.Context()); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
}

// Detach returns when its ctx ends even if every adapter ignores the
// cancellation; the adapters are closed once they return.
func TestDetachReturnsWhileAdaptersIgnoreCancellation(t *testing.T) {
	block := make(chan struct{})
	var names []string
	var drivers []*fakeDriver
	for range 3 {
		d := &fakeDriver{def: true}
		drivers = append(drivers, d)
		names = append(names, register(d))
	}
	r := mustNew(t, testOptions(t, names...))
	store := session.NewStore()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	for _, d := range drivers {
		a := d.adapters()[0]
		a.next(t)
		a.ignoreCtx.Store(true)
		a.setBlock(block)
	}
	store.AgentStart()
	for _, d := range drivers {
		a := d.adapters()[0]
		waitFor(t, "the delivery in flight", func() bool { return a.calls.Load() == 2 })
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	err := r.Detach(ctx) // returns although no adapter has returned
	if err == nil || !strings.Contains(err.Error(), "did not return") {
		t.Errorf("Detach = %v, want an error about adapters that did not return", err)
	}
	for _, d := range drivers {
		if d.adapters()[0].closed.Load() {
			t.Error("an adapter still inside Report was closed")
		}
	}
	close(block)
	for _, d := range drivers {
		waitFor(t, "the adapter closed after returning", d.adapters()[0].closed.Load)
	}
	if r.Explain().Attached {
		t.Error("still attached")
	}
}

func TestDetachWithEndedContextStillStops(t *testing.T) {
	r, store, a := attachedFake(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_ = r.Detach(ctx) // the lock is free: Detach proceeds; no release in time
	if r.Explain().Attached {
		t.Fatal("still attached after Detach with an ended context")
	}
	waitFor(t, "the adapter closed", a.closed.Load)
	store.AgentStart()
	if n := a.calls.Load(); n != 1 {
		t.Errorf("Report called %d times after Detach, want only the first", n)
	}
}

func TestExplainSaysWhetherADisabledAdapterApplies(t *testing.T) {
	off := &fakeDriver{def: false}
	r := mustNew(t, testOptions(t, register(off)))
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	if why := r.Explain().Adapters[0].Why; !strings.Contains(why, "off by default") || !strings.Contains(why, "it applies here") {
		t.Errorf("why = %q", why)
	}
}

// A settings change that is draining an adapter stuck in Report holds the
// control lock; Detach cancels it instead of waiting behind it.
func TestDetachCutsThroughASettingsChangeOnAStuckAdapter(t *testing.T) {
	d := &fakeDriver{def: true}
	name := register(d)
	opts := testOptions(t, name)
	opts.StaticSettings = false
	opts.Settings.Debounce = 10 * time.Millisecond
	r := mustNew(t, opts)
	store := session.NewStore()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	a := d.adapters()[0]
	a.next(t)
	a.setBlock(make(chan struct{})) // Report waits for its ctx
	store.AgentStart()
	waitFor(t, "the delivery in flight", func() bool { return a.calls.Load() == 2 })
	writeSettings(t, r, `{"`+name+`": {"enabled": false}}`)
	waitFor(t, "the settings change to hold the lock", func() bool { return len(r.ctl) == 1 })
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	if err := r.Detach(ctx); err != nil && errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Detach waited behind the settings change: %v", err)
	}
	if r.Explain().Attached {
		t.Error("still attached")
	}
	waitFor(t, "the adapter closed", a.closed.Load)
}

// Explain shows a settings file's current problem even when the effective
// settings, and so the adapters, did not change.
func TestExplainShowsAFileErrorAfterAttach(t *testing.T) {
	d := &fakeDriver{def: true}
	name := register(d)
	opts := testOptions(t, name)
	opts.StaticSettings = false
	opts.Settings.Debounce = 10 * time.Millisecond
	opts.Settings.RetryAfter = 20 * time.Millisecond
	r := mustNew(t, opts)
	writeSettings(t, r, `{"`+name+`": {"enabled": true}}`)
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	d.adapters()[0].next(t)
	writeSettings(t, r, `{"`+name+`": {"enabled": tru`)
	waitFor(t, "Explain to show the error", func() bool {
		f := r.Explain().Files[0]
		return f.Condition == settings.ConditionError && f.Stale && f.Err != ""
	})
	if got := r.Explain().Adapters[0].State; got != StateActive {
		t.Errorf("adapter %s after a bad edit, want it kept active", got)
	}
}

func TestExplainNamesTheTrustStore(t *testing.T) {
	opts := testOptions(t, register(&fakeDriver{}))
	opts.Settings.ProjectRoot = t.TempDir()
	opts.Settings.TrustFile = filepath.Join(opts.Settings.Home, "trust.json")
	r := mustNew(t, opts)
	if text := r.Explain().String(); !strings.Contains(text, "trust store: "+opts.Settings.TrustFile) {
		t.Errorf("Explain does not name the trust store:\n%s", text)
	}
}
