package registry

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

var tuiHost = session.Host{Mode: session.ModeTUI, HasUI: true, Role: session.RoleRoot}

func testOptions(t *testing.T, names ...string) Options {
	return Options{
		App:            "paneapp",
		Host:           tuiHost,
		Env:            []string{},
		Settings:       settings.Options{Home: t.TempDir()},
		StaticSettings: true,
		Adapters:       names,
	}
}

func mustNew(t *testing.T, opts Options) *Registry {
	t.Helper()
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Detach(context.Background()); err != nil {
			t.Errorf("cleanup Detach: %v", err)
		}
	})
	return r
}

func rep(s adapter.State, r adapter.Reason, m adapter.Message) adapter.Report {
	return adapter.Report{State: s, Reason: r, Message: m}
}

func TestRegisterPanics(t *testing.T) {
	taken := register(&fakeDriver{})
	tests := []struct {
		name   string
		adName string
		driver adapter.Driver
	}{
		{"nil driver", "fine", nil},
		{"duplicate", taken, &fakeDriver{}},
		{"empty name", "", &fakeDriver{}},
		{"upper case", "Herdr", &fakeDriver{}},
		{"leading digit", "1x", &fakeDriver{}},
		{"dot separates settings keys", "a.b", &fakeDriver{}},
		{"space", "a b", &fakeDriver{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", tt.adName)
				}
			}()
			Register(tt.adName, tt.driver)
		})
	}
}

func TestDriversSortedAndBuiltins(t *testing.T) {
	names := Drivers()
	if !slicesSorted(names) {
		t.Errorf("Drivers() not sorted: %v", names)
	}
	for _, want := range []string{"herdr", "noop"} {
		if !contains(names, want) {
			t.Errorf("built-in driver %q not registered: %v", want, names)
		}
	}
}

func slicesSorted(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] > s[i] {
			return false
		}
	}
	return true
}

func contains(s []string, x string) bool {
	return slices.Contains(s, x)
}

func TestNewErrors(t *testing.T) {
	if _, err := New(Options{App: "x", Adapters: []string{"no-such-adapter"}}); err == nil || !strings.Contains(err.Error(), "forgotten import?") {
		t.Errorf("unknown adapter: got %v, want an error mentioning a forgotten import", err)
	}
	for _, app := range []string{"", "a/b", "../x", strings.Repeat("a", 65)} {
		if _, err := New(Options{App: app}); err == nil {
			t.Errorf("New(App: %q) succeeded", app)
		}
	}
}

func TestAttachReportsStateChanges(t *testing.T) {
	d := &fakeDriver{def: true}
	r := mustNew(t, testOptions(t, register(d)))
	store := session.NewStore()
	store.AgentStart()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	a := d.adapters()[0]
	want := []adapter.Report{
		rep(adapter.StateWorking, adapter.ReasonExecuting, adapter.MessageNone), // current state at once
		rep(adapter.StateBlocked, adapter.ReasonAwaitingInput, adapter.MessageWaitingForApproval),
		rep(adapter.StateWorking, adapter.ReasonExecuting, adapter.MessageNone),
		rep(adapter.StateIdle, adapter.ReasonQuiescent, adapter.MessageNone),
	}
	var got []adapter.Report
	got = append(got, a.next(t))
	store.PromptStart("p1", session.PromptApproval)
	got = append(got, a.next(t))
	store.PromptEnd("p1")
	got = append(got, a.next(t))
	store.AgentSettled()
	got = append(got, a.next(t))
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("reports (-got +want):\n%s", diff)
	}
}

func TestEqualReportIsNotDeliveredAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &fakeDriver{def: true}
		r := mustNew(t, testOptions(t, register(d)))
		store := session.NewStore()
		store.SetPhase(session.PhaseThinking)
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		a := d.adapters()[0]
		a.next(t)
		store.SetPhase(session.PhaseStreaming) // still working (executing)
		synctest.Wait()
		store.SetPhase(session.PhaseToolExecution)
		synctest.Wait()
		if n := a.calls.Load(); n != 1 {
			t.Errorf("Report called %d times, want 1", n)
		}
		if c := r.Explain().Adapters[0].Counters; c.Unchanged != 2 {
			t.Errorf("Unchanged = %d, want 2", c.Unchanged)
		}
	})
}

func TestStuckAdapterCoalescesToNewest(t *testing.T) {
	d := &fakeDriver{def: true}
	r := mustNew(t, testOptions(t, register(d)))
	store := session.NewStore()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	a := d.adapters()[0]
	a.next(t) // idle
	release := make(chan struct{})
	a.setBlock(release)
	store.AgentStart() // the worker takes this one and blocks in Report
	waitFor(t, "the delivery in flight", func() bool { return a.calls.Load() == 2 })
	for i := range 1000 {
		if i%2 == 0 {
			store.PromptStart("p", session.PromptQuestion)
		} else {
			store.PromptEnd("p")
		}
	}
	store.PromptStart("final", session.PromptApproval) // the newest state
	close(release)
	a.next(t) // the delivery that was in flight
	last := a.next(t)
	if want := rep(adapter.StateBlocked, adapter.ReasonAwaitingInput, adapter.MessageWaitingForApproval); last != want {
		t.Errorf("after the stuck delivery got %v, want the newest state %v", last, want)
	}
	if n := a.calls.Load(); n > 3 {
		t.Errorf("Report called %d times for 1002 changes, want at most 3", n)
	}
}

func TestFailedDeliveryIsRetriedWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := attachedFake(t)
		a.fail.Store(3)
		changed := time.Now()
		store.AgentStart()
		got := a.next(t)
		if got.State != adapter.StateWorking {
			t.Fatalf("got %v, want working", got)
		}
		// Three failures: retries after 0.5 s, 1 s and 2 s.
		if waited := time.Since(changed); waited != 3500*time.Millisecond {
			t.Errorf("delivered %v after the change, want 3.5s", waited)
		}
		if n := a.calls.Load(); n != 5 {
			t.Errorf("Report called %d times, want 5 (1 + 1 + 3 retries)", n)
		}
		if c := r.Explain().Adapters[0].Counters; c.Failed != 3 || c.Retries != 3 {
			t.Errorf("counters %+v, want 3 failed, 3 retries", c)
		}
	})
}

func TestRetryGivesUpUntilNextChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, store, a := attachedFake(t)
		a.fail.Store(1000)
		store.AgentStart()
		time.Sleep(time.Hour) // fake time: every retry timer fires
		synctest.Wait()
		if n := a.calls.Load(); n != 1+1+retryTries {
			t.Errorf("Report called %d times, want %d (initial, failure, %d retries)", n, 1+1+retryTries, retryTries)
		}
		a.fail.Store(0)
		store.PromptStart("p", session.PromptApproval)
		if got := a.next(t); got.State != adapter.StateBlocked {
			t.Errorf("after the next change got %v, want blocked", got)
		}
	})
}

func TestPanickingAdapterIsStopped(t *testing.T) {
	d := &fakeDriver{def: true}
	opts := testOptions(t, register(d))
	var mu sync.Mutex
	var diags []adapter.Diagnostic
	opts.OnDiagnostic = func(dg adapter.Diagnostic) { mu.Lock(); diags = append(diags, dg); mu.Unlock() }
	r := mustNew(t, opts)
	store := session.NewStore()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	a := d.adapters()[0]
	a.next(t)
	a.panicky.Store(true)
	store.AgentStart()
	deadline := time.Now().Add(10 * time.Second)
	for r.Explain().Adapters[0].State != "panicked" {
		if time.Now().After(deadline) {
			t.Fatalf("adapter not stopped after panic: %+v", r.Explain().Adapters[0])
		}
		time.Sleep(time.Millisecond)
	}
	store.AgentSettled() // the chat service goes on
	waitFor(t, "the panicked adapter closed", a.closed.Load)
	mu.Lock()
	defer mu.Unlock()
	if len(diags) == 0 || diags[0].Kind != adapter.KindAdapterPanic {
		t.Errorf("diagnostics %v, want an adapter_panic", diags)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.released != 1 {
		t.Errorf("panicked adapter released %d times, want once", a.released)
	}
}

func TestDetachReleasesAndClosesInReverseOrder(t *testing.T) {
	log := &eventLog{}
	d1 := &fakeDriver{def: true, tag: "a", events: log}
	d2 := &fakeDriver{def: true, tag: "b", events: log}
	n1, n2 := register(d1), register(d2)
	r := mustNew(t, testOptions(t, n1, n2))
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	d1.adapters()[0].next(t)
	d2.adapters()[0].next(t)
	if err := r.Detach(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := r.Detach(t.Context()); err != nil {
		t.Fatalf("second Detach: %v", err)
	}
	want := []string{"open a0", "open b0", "release b0", "close b0", "release a0", "close a0"}
	if diff := cmp.Diff(log.all(), want); diff != "" {
		t.Errorf("lifecycle (-got +want):\n%s", diff)
	}
}

func TestDetachWithoutAttachAndAttachTwice(t *testing.T) {
	d := &fakeDriver{def: true}
	r := mustNew(t, testOptions(t, register(d)))
	if err := r.Detach(t.Context()); err != nil {
		t.Fatalf("Detach before Attach: %v", err)
	}
	store := session.NewStore()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatalf("second Attach: %v", err)
	}
	if n := len(d.adapters()); n != 1 {
		t.Errorf("opened %d adapters, want 1", n)
	}
	if err := r.Attach(t.Context(), nil); err != nil {
		t.Logf("Attach(nil) on an attached registry: %v", err)
	}
	if err := r.Detach(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Attach again after Detach works and opens a fresh adapter.
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	if n := len(d.adapters()); n != 2 {
		t.Errorf("opened %d adapters after re-attach, want 2", n)
	}
}

func TestDetachIsBoundedByContext(t *testing.T) {
	r, store, a := attachedFake(t)
	a.setBlock(make(chan struct{})) // never unblocked: only ctx ends it
	store.AgentStart()
	for a.calls.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err := r.Detach(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Detach with a stuck delivery: %v, want a deadline error", err)
	}
	if !a.closed.Load() {
		t.Error("adapter not closed after a cancelled delivery")
	}
}

func TestNoApplicableAdapterStartsNothing(t *testing.T) {
	d := &fakeDriver{def: true, inactive: errors.Join(adapter.ErrInactive, errors.New("FAKE_ENV is not set"))}
	opts := testOptions(t, register(d), register(&fakeDriver{def: false}))
	opts.StaticSettings = false // even the settings watcher must not start
	r := mustNew(t, opts)
	before := runtime.NumGoroutine()
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	if after := runtime.NumGoroutine(); after != before {
		t.Errorf("Attach outside every workspace: goroutines %d -> %d", before, after)
	}
	e := r.Explain()
	if got := e.Adapters[0]; got.State != "inactive" || !strings.Contains(got.Why, "FAKE_ENV is not set") {
		t.Errorf("explain %+v, want inactive with the reason", got)
	}
	if got := e.Adapters[1]; got.State != "disabled" || got.EnabledBy != "default" {
		t.Errorf("explain %+v, want disabled by default", got)
	}
}

func TestSessionIdentityIsForwarded(t *testing.T) {
	_, store, a := attachedFake(t)
	store.SetIdentity(session.Identity{ID: "s1", Path: "/tmp/s1.jsonl"})
	store.AgentStart()
	a.next(t)
	a.mu.Lock()
	defer a.mu.Unlock()
	if want := (session.Identity{ID: "s1", Path: "/tmp/s1.jsonl"}); a.session != want {
		t.Errorf("session %+v, want %+v", a.session, want)
	}
}

func TestUnknownWorkflowStateSendsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &fakeDriver{def: true}
		r := mustNew(t, testOptions(t, register(d)))
		store := session.NewStore()
		store.SetWorkflows(session.AvailabilityUnavailable, nil)
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := d.adapters()[0].calls.Load(); n != 0 {
			t.Errorf("Report called %d times while workflow state is unknown", n)
		}
		if c := r.Explain().Adapters[0].Counters; c.Unknown != 1 {
			t.Errorf("Unknown = %d, want 1", c.Unknown)
		}
	})
}

func TestScrubEnv(t *testing.T) {
	got := ScrubEnv([]string{"HERDR_ENV=1", "HERDR_PANE_ID=w1:p1", "PATH=/bin", "HERDRX=keep"})
	if diff := cmp.Diff(got, []string{"PATH=/bin", "HERDRX=keep"}); diff != "" {
		t.Errorf("ScrubEnv (-got +want):\n%s", diff)
	}
}

// writeSettings writes the global settings file of a registry made by
// testOptions, atomically.
func writeSettings(t *testing.T, r *Registry, body string) {
	t.Helper()
	path := filepath.Join(r.opts.Settings.Home, ".paneapp", "agent", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSettingsToggleAdapterLive(t *testing.T) {
	log := &eventLog{}
	d := &fakeDriver{def: true, tag: "h", events: log, keys: []string{"color"},
		openErr: func(p adapter.Params) error {
			if strings.Contains(string(p.Settings), "bad") {
				return errors.New("color must not be bad")
			}
			return nil
		}}
	name := register(d)
	opts := testOptions(t, name)
	opts.StaticSettings = false
	opts.Settings.Debounce = 10 * time.Millisecond
	opts.Settings.Grace = 50 * time.Millisecond
	r := mustNew(t, opts)
	store := session.NewStore()
	store.AgentStart()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	d.adapters()[0].next(t)

	// Off: drained, released, closed.
	writeSettings(t, r, `{"other": 1, "`+name+`": {"enabled": false}}`)
	waitFor(t, "release and close", func() bool { return len(log.all()) >= 3 })
	if got := r.Explain().Adapters[0]; got.State != "disabled" || got.EnabledBy != "global" {
		t.Errorf("after disabling: %+v", got)
	}
	// On again: a new adapter reports the current state at once.
	store.PromptStart("p", session.PromptApproval)
	writeSettings(t, r, `{"`+name+`": {"enabled": true}}`)
	waitFor(t, "re-open", func() bool { return len(d.adapters()) == 2 })
	if got := d.adapters()[1].next(t); got.State != adapter.StateBlocked {
		t.Errorf("re-enabled adapter first reported %v, want the current (blocked) state", got)
	}
	// Another key changed: a successor is opened, the old one closed, not released.
	writeSettings(t, r, `{"`+name+`": {"enabled": true, "color": "green"}}`)
	waitFor(t, "reload", func() bool { return len(d.adapters()) == 3 })
	if s := d.adapters()[2].settings; s != `{"color":"green"}` {
		t.Errorf("successor got settings %s", s)
	}
	d.adapters()[2].next(t)
	// Bad settings: the running adapter is kept and Explain says why.
	writeSettings(t, r, `{"`+name+`": {"enabled": true, "color": "bad"}}`)
	waitFor(t, "settings error", func() bool { return r.Explain().Adapters[0].SettingsError != "" })
	if got := r.Explain().Adapters[0]; got.State != "active" || !strings.Contains(got.SettingsError, "must not be bad") {
		t.Errorf("after bad settings: %+v", got)
	}
	want := []string{"open h0", "release h0", "close h0", "open h1", "open h2", "close h1"}
	if diff := cmp.Diff(log.all(), want); diff != "" {
		t.Errorf("lifecycle (-got +want):\n%s", diff)
	}
}

func TestExplainBeforeAttach(t *testing.T) {
	inactive := &fakeDriver{def: true, inactive: errors.Join(adapter.ErrInactive, errors.New("not in a pane"))}
	off := &fakeDriver{def: false}
	on := &fakeDriver{def: true}
	r := mustNew(t, testOptions(t, register(inactive), register(off), register(on)))
	e := r.Explain()
	got := []string{e.Adapters[0].State, e.Adapters[1].State, e.Adapters[2].State}
	if diff := cmp.Diff(got, []string{"inactive", "disabled", "not attached"}); diff != "" {
		t.Errorf("states (-got +want):\n%s", diff)
	}
	if !strings.Contains(e.String(), "not in a pane") || !strings.Contains(e.String(), "off by default") {
		t.Errorf("Explain text lacks the reasons:\n%s", e)
	}
	if len(inactive.adapters())+len(off.adapters())+len(on.adapters()) != 0 {
		t.Error("Explain before Attach opened an adapter")
	}
}

func settingsAt(home string) settings.Options { return settings.Options{Home: home} }

func TestSettingsHomeComesFromEnv(t *testing.T) {
	home := t.TempDir()
	r := mustNew(t, Options{App: "paneapp", Env: []string{"HOME=" + home}, Adapters: []string{register(&fakeDriver{})}})
	want := filepath.Join(home, ".paneapp", "agent", "settings.json")
	if got := r.Explain().Files[0].Path; got != want {
		t.Errorf("global settings at %s, want %s (from the given HOME)", got, want)
	}
}
