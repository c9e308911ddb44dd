package registry

import (
	"context"
	"errors"
	"maps"
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
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

var tuiHost = session.Host{Interactive: true, Root: true}

func testOptions(t testing.TB, names ...string) Options {
	return Options{
		App:            "paneapp",
		Host:           tuiHost,
		Env:            []string{},
		Settings:       settings.Options{Home: t.TempDir()},
		StaticSettings: true,
		Drivers:        pick(names...),
	}
}

// mustNew returns a registry for opts, detached when the test ends. Its
// throttle is off, so that a test of something else sees each change
// delivered at once; throttle_test.go tests the throttle.
func mustNew(t testing.TB, opts Options) *Registry {
	t.Helper()
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.window = 0
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

var (
	idle    = rep(adapter.StateIdle, adapter.ReasonQuiescent, adapter.MessageNone)
	working = rep(adapter.StateWorking, adapter.ReasonExecuting, adapter.MessageNone)
	blocked = rep(adapter.StateBlocked, adapter.ReasonAwaitingInput, adapter.MessageWaitingForApproval)
)

// pick returns the drivers named, built-in ones or those of register, as
// Options.Drivers; none gives nil, the built-in ones.
func pick(names ...string) map[string]adapter.Driver {
	if names == nil {
		return nil
	}
	builtin := Builtin()
	m := make(map[string]adapter.Driver, len(names))
	for _, n := range names {
		if d, ok := fakes.Load(n); ok {
			m[n] = d.(*fakeDriver)
			continue
		}
		if builtin[n] == nil {
			panic("registry test: no driver named " + n)
		}
		m[n] = builtin[n]
	}
	return m
}

func TestBuiltinListsEveryWorkspace(t *testing.T) {
	got := slices.Sorted(maps.Keys(Builtin()))
	if diff := cmp.Diff(got, []string{"herdr", "noop", "progstatus", "terminal", "tmux", "wezterm"}); diff != "" {
		t.Errorf("Builtin (-got +want):\n%s", diff)
	}
	// Each call is a new map: a host that adds its own adapter changes no
	// other registry's drivers.
	mine := Builtin()
	mine["title"] = &fakeDriver{}
	if _, shared := Builtin()["title"]; shared {
		t.Error("a driver added to one Builtin map shows in the next")
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"empty app", Options{App: ""}, "Options.App"},
		{"slash in app", Options{App: "a/b"}, "Options.App"},
		{"dot-dot app", Options{App: "../x"}, "Options.App"},
		{"long app", Options{App: strings.Repeat("a", 65)}, "Options.App"},
		{"nil driver", Options{App: "x", Drivers: map[string]adapter.Driver{"rec": nil}}, `driver "rec" is nil`},
		{"bad driver name", Options{App: "x", Drivers: map[string]adapter.Driver{"Rec": &fakeDriver{}}}, `adapter name "Rec" must match`},
		{"empty driver name", Options{App: "x", Drivers: map[string]adapter.Driver{"": &fakeDriver{}}}, `adapter name "" must match`},
		{"leading digit", Options{App: "x", Drivers: map[string]adapter.Driver{"1x": &fakeDriver{}}}, `adapter name "1x" must match`},
		{"dot separates settings keys", Options{App: "x", Drivers: map[string]adapter.Driver{"a.b": &fakeDriver{}}}, `adapter name "a.b" must match`},
		{"project path without root", Options{App: "x", Settings: settings.Options{Home: "/h", ProjectPath: "/p/s.json"}}, "ProjectPath is set without ProjectRoot"},
		{"project path without root, no home given", Options{App: "x", Settings: settings.Options{ProjectPath: "/p/s.json"}}, "ProjectPath is set without ProjectRoot"},
		{"negative release timeout", Options{App: "x", ReleaseTimeout: -time.Second}, "ReleaseTimeout is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// Options.Drivers replaces the built-in drivers: a test's recorder runs
// alone, and the built-in drivers are not there.
func TestOptionsDriversReplaceTheBuiltinOnes(t *testing.T) {
	rec := adaptertest.NewRecorder()
	opts := testOptions(t)
	opts.Drivers = map[string]adapter.Driver{"rec": adaptertest.NewDriver(rec)}
	r := mustNew(t, opts)
	store := session.NewStore()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	if err := rec.Wait(t.Context(), func(rs []adapter.Report) bool { return len(rs) == 1 }); err != nil {
		t.Fatal(err)
	}
	store.AgentStart()
	if err := rec.Wait(t.Context(), func(rs []adapter.Report) bool { return len(rs) == 2 }); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range r.Explain().Adapters {
		names = append(names, a.Name)
	}
	if diff := cmp.Diff(names, []string{"rec"}); diff != "" {
		t.Errorf("adapters (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(rec.Reports(), []adapter.Report{idle, working}); diff != "" {
		t.Errorf("reports (-got +want):\n%s", diff)
	}
}

func TestZeroRegistryPanics(t *testing.T) {
	for _, tt := range []struct {
		name string
		call func(r *Registry)
	}{
		{"Attach", func(r *Registry) { _ = r.Attach(context.Background(), session.NewStore()) }},
		{"Detach", func(r *Registry) { _ = r.Detach(context.Background()) }},
		{"Explain", func(r *Registry) { _ = r.Explain() }},
		{"DetachOnSignal", func(r *Registry) { r.DetachOnSignal()() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				p := recover()
				if msg, _ := p.(string); !strings.Contains(msg, "registry.New") {
					t.Errorf("panic %v, want one naming registry.New", p)
				}
			}()
			tt.call(&Registry{})
		})
	}
}

func TestAttachNilSource(t *testing.T) {
	for _, tt := range []struct {
		name string
		src  session.Source
	}{
		{"nil interface", nil},
		{"nil *session.Store", (*session.Store)(nil)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &fakeDriver{def: true}
			r := mustNew(t, testOptions(t, register(d)))
			err := r.Attach(t.Context(), tt.src)
			if err == nil || !strings.Contains(err.Error(), "nil session.Source") {
				t.Errorf("Attach: %v, want an error about the nil source", err)
			}
			if len(d.adapters()) != 0 || r.Explain().Attached {
				t.Error("Attach with a nil source opened an adapter or attached")
			}
		})
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
		working, // the current state at once
		blocked,
		working,
		idle,
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
		store.SetPhase(session.PhaseWorking)
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		a := d.adapters()[0]
		a.next(t)
		store.SetTasks(1) // a new snapshot, still working (executing)
		synctest.Wait()
		store.SetWorkflows(session.Workflows{Paused: true})
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
	r, store, a := attachedFake(t)
	_ = r
	release := make(chan struct{})
	a.setBlock(release)
	store.AgentStart() // the worker takes this one and blocks in Report
	a.inReport(t)
	for i := range 1000 {
		if i%2 == 0 {
			store.PromptStart("p", session.PromptInput)
		} else {
			store.PromptEnd("p")
		}
	}
	store.PromptStart("final", session.PromptApproval) // the newest state
	close(release)
	a.next(t) // the delivery that was in flight
	if last := a.next(t); last != blocked {
		t.Errorf("after the stuck delivery got %v, want the newest state %v", last, blocked)
	}
	if n := a.calls.Load(); n != 3 {
		t.Errorf("Report called %d times for 1002 changes, want 3 (first, in flight, newest)", n)
	}
}

func TestFailedDeliveryIsRetriedWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := attachedFake(t)
		a.fail.Store(3)
		changed := time.Now()
		store.AgentStart()
		if got := a.next(t); got != working {
			t.Fatalf("got %v, want working", got)
		}
		// Three failures: retries after 0.5 s, 1 s and 2 s.
		if waited := time.Since(changed); waited != 3500*time.Millisecond {
			t.Errorf("delivered %v after the change, want 3.5s", waited)
		}
		if n := a.calls.Load(); n != 5 {
			t.Errorf("Report called %d times, want 5 (1 + 1 + 3 retries)", n)
		}
		if c, retries := r.Explain().Adapters[0].Counters, r.entries[0].retries.Load(); c.Failed != 3 || retries != 3 {
			t.Errorf("counters %+v, %d retries; want 3 failed, 3 retries", c, retries)
		}
	})
}

// The newest state is retried for as long as it is the newest, with the
// backoff capped at 30 s: a workspace that comes back after an hour gets it
// without any new change.
func TestRetryNeverGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, store, a := attachedFake(t)
		a.fail.Store(1 << 30)
		start := time.Now()
		store.AgentStart()
		time.Sleep(time.Hour) // fake time: every retry timer fires
		synctest.Wait()
		// Retries at 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s, then every 30 s.
		want := 1 + 1 + 6 + int((time.Hour-31500*time.Millisecond)/retryMax)
		if n := int(a.calls.Load()); n != want {
			t.Errorf("Report called %d times in an hour of failures, want %d", n, want)
		}
		a.fail.Store(0)
		if got := a.next(t); got != working {
			t.Errorf("after the workspace came back got %v, want working", got)
		}
		if waited := time.Since(start); waited > time.Hour+retryMax {
			t.Errorf("delivered after %v, want within one capped backoff of the hour", waited)
		}
	})
}

func TestRefresh(t *testing.T) {
	for _, tt := range []struct {
		name  string
		every time.Duration
		want  int32 // Report calls after the first, over 35 s
	}{
		{"every 10s", 10 * time.Second, 3},
		{"zero means never", 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := &fakeDriver{def: true, refresh: tt.every}
				r := mustNew(t, testOptions(t, register(d)))
				if err := r.Attach(t.Context(), session.NewStore()); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				a := d.adapters()[0]
				time.Sleep(35 * time.Second)
				synctest.Wait()
				if n := a.calls.Load() - 1; n != tt.want {
					t.Errorf("%d refreshes in 35 s, want %d", n, tt.want)
				}
				if got := r.entries[0].refreshes.Load(); got != uint64(tt.want) {
					t.Errorf("Refreshes counter %d, want %d", got, tt.want)
				}
			})
		})
	}
}

// A delivery resets the refresh timer: only a quiet interval refreshes.
func TestRefreshWaitsForAQuietInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &fakeDriver{def: true, refresh: 10 * time.Second}
		r := mustNew(t, testOptions(t, register(d)))
		store := session.NewStore()
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		a := d.adapters()[0]
		a.next(t)
		time.Sleep(9 * time.Second)
		store.AgentStart()
		a.next(t)
		time.Sleep(9 * time.Second) // 18 s after the first delivery, 9 s after the second
		synctest.Wait()
		if n := a.calls.Load(); n != 2 {
			t.Errorf("Report called %d times, want 2: no refresh before a quiet interval", n)
		}
		time.Sleep(2 * time.Second)
		if got := a.next(t); got != working {
			t.Errorf("refresh delivered %v, want the newest report, working", got)
		}
	})
}

func TestPanickingAdapterIsStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
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
		synctest.Wait()
		if got := r.Explain().Adapters[0].Lifecycle; got != LifecyclePanicked {
			t.Errorf("lifecycle %v after a panic, want panicked", got)
		}
		store.AgentSettled() // the chat service goes on
		if !a.closed.Load() || a.releases() != 1 {
			t.Errorf("panicked adapter: closed %t, released %d times; want closed, released once", a.closed.Load(), a.releases())
		}
		mu.Lock()
		defer mu.Unlock()
		if len(diags) == 0 || diags[0].Kind != adapter.KindAdapterPanic {
			t.Errorf("diagnostics %v, want an adapter_panic", diags)
		}
	})
}

func TestPanicInSetSessionStopsOnlyTheAdapter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := attachedFake(t)
		a.panicIn.Store("SetSession")
		store.SetIdentity(session.Identity{ID: "s2"})
		synctest.Wait()
		got := r.Explain().Adapters[0]
		if got.Lifecycle != LifecyclePanicked || !a.closed.Load() {
			t.Errorf("lifecycle %v, closed %t; want panicked and closed", got.Lifecycle, a.closed.Load())
		}
		if n := diagCount(got, adapter.KindAdapterPanic); n != 1 {
			t.Errorf("adapter_panic count %d, want 1", n)
		}
		store.AgentStart() // the host goes on
	})
}

func TestPanicInDetailsIsContained(t *testing.T) {
	r, _, a := attachedFake(t)
	a.panicIn.Store("Details")
	e := r.Explain() // must not panic in the caller
	if e.Adapters[0].Details != nil {
		t.Errorf("details %v from a panicking Details", e.Adapters[0].Details)
	}
	if got := r.Explain().Adapters[0]; diagCount(got, adapter.KindAdapterPanic) == 0 || got.Lifecycle != LifecycleActive {
		t.Errorf("after a panic in Details: %+v; want it recorded as adapter_panic, the adapter still active", got)
	}
}

func TestDetachReleasesAndClosesEveryAdapter(t *testing.T) {
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
	// The adapters are released in parallel: only each one's own order is
	// fixed.
	for _, tag := range []string{"a", "b"} {
		var own []string
		for _, ev := range log.all() {
			if strings.HasSuffix(ev, " "+tag+"0") {
				own = append(own, ev)
			}
		}
		if diff := cmp.Diff(own, []string{"open " + tag + "0", "release " + tag + "0", "close " + tag + "0"}); diff != "" {
			t.Errorf("adapter %s lifecycle (-got +want):\n%s", tag, diff)
		}
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
	if err := r.Attach(t.Context(), nil); err == nil {
		t.Error("Attach(nil) on an attached registry succeeded, want an error")
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

// At Detach, a delivery in flight that the workspace never answers (its
// Report returns only when ctx ends) is waited for during the first half of
// the release budget, then cancelled, and the release follows; the error
// says the abandoned report may still land.
func TestDetachCancelsAHungDeliveryAtHalfTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := attachedFake(t)
		a.setBlock(make(chan struct{})) // never unblocked: only ctx ends it
		store.AgentStart()
		a.inReport(t)
		start := time.Now()
		err := r.Detach(context.Background())
		if err == nil || !strings.Contains(err.Error(), "may still apply") {
			t.Errorf("Detach = %v, want an error saying the abandoned report may still land", err)
		}
		if took, want := time.Since(start), defaultReleaseTimeout/2; took != want {
			t.Errorf("Detach took %v of fake time, want half the budget, %v", took, want)
		}
		if a.releases() != 1 || !a.closed.Load() {
			t.Errorf("released %d times, closed %t; want released once and closed", a.releases(), a.closed.Load())
		}
	})
}

// A Detach called again while an adapter that outlived the first one's
// budget is still inside its call is not a no-op: it waits for that adapter
// within its own budget and releases it, and says so if it cannot.
func TestDetachAgainWaitsForAnAdapterStillHung(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := attachedFake(t)
		hung := make(chan struct{})
		a.ignoreCtx.Store(true)
		a.setBlock(hung)
		store.AgentStart()
		a.inReport(t)
		if err := r.Detach(context.Background()); err == nil {
			t.Fatal("first Detach returned nil with the adapter hung")
		}
		go func() {
			time.Sleep(100 * time.Millisecond) // the workspace comes back during the second Detach
			close(hung)
		}()
		// The report was cancelled by the first Detach: the error still
		// says it may land after the release, but the release is made.
		if err := r.Detach(context.Background()); err == nil || !strings.Contains(err.Error(), "may still apply") {
			t.Errorf("second Detach = %v, want an error saying the cancelled report may still land", err)
		}
		if a.releases() != 1 || !a.closed.Load() {
			t.Errorf("released %d times, closed %t; want released once and closed", a.releases(), a.closed.Load())
		}
		if err := r.Detach(context.Background()); err != nil {
			t.Errorf("third Detach: %v, want nil: nothing is left", err)
		}
	})
}

// Six adapters that ignore cancellation share one budget: Detach returns by
// the budget plus one grace, not one per adapter, and leaves them
// unreleased for the next Detach, however short its ctx.
func TestDetachSharesOneBudgetAmongStuckAdapters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		var names []string
		var drivers []*fakeDriver
		for range 6 {
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
		synctest.Wait() // every adapter is inside Report
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		start := time.Now()
		err := r.Detach(ctx)
		if took, want := time.Since(start), defaultReleaseTimeout+cancelGrace; took != want {
			t.Errorf("Detach took %v, want the budget plus one shared grace, %v", took, want)
		}
		if err == nil || strings.Count(err.Error(), "did not return from its report in flight") != 6 {
			t.Errorf("Detach = %v, want an error naming the six adapters that did not return", err)
		}
		for _, d := range drivers {
			if d.adapters()[0].closed.Load() {
				t.Error("an adapter still inside Report was closed")
			}
		}
		close(block)
		synctest.Wait()
		for _, st := range r.Explain().Adapters {
			if st.Lifecycle != LifecycleUnreleased {
				t.Errorf("%s after returning past the budget: %v, want unreleased", st.Name, st.Lifecycle)
			}
		}
		if err := r.Detach(t.Context()); err != nil {
			t.Errorf("second Detach: %v", err)
		}
		for _, d := range drivers {
			if a := d.adapters()[0]; !a.closed.Load() || a.releases() != 1 {
				t.Errorf("after the second Detach: closed %t, released %d; want closed and released", a.closed.Load(), a.releases())
			}
		}
		if r.Explain().Attached {
			t.Error("still attached")
		}
	})
}

// A host's signal.NotifyContext context is done by the time it calls
// Detach: the release is still attempted, with a budget of its own.
func TestDetachWithADoneContextStillReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := attachedFake(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := r.Detach(ctx); err != nil {
			t.Errorf("Detach with a done context: %v", err)
		}
		if a.releases() != 1 || !a.closed.Load() {
			t.Errorf("released %d, closed %t; want released once and closed", a.releases(), a.closed.Load())
		}
		store.AgentStart()
		synctest.Wait()
		if n := a.calls.Load(); n != 1 {
			t.Errorf("Report called %d times after Detach, want only the first", n)
		}
	})
}

// A release that fails leaves the adapter open, shown as unreleased; the
// next Detach tries again.
func TestDetachRetriesAFailedRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log := &eventLog{}
		d := &fakeDriver{def: true, tag: "h", events: log, releaseFails: 1}
		r := mustNew(t, testOptions(t, register(d)))
		if err := r.Attach(t.Context(), session.NewStore()); err != nil {
			t.Fatal(err)
		}
		a := d.adapters()[0]
		a.next(t)
		err := r.Detach(t.Context())
		if err == nil || !strings.Contains(err.Error(), "fake release failure") {
			t.Errorf("first Detach: %v, want the release failure", err)
		}
		if got := r.Explain().Adapters[0]; got.Lifecycle != LifecycleUnreleased || !strings.Contains(got.Why, "next Detach tries again") {
			t.Errorf("after a failed release: %v (%s), want unreleased", got.Lifecycle, got.Why)
		}
		if err := r.Detach(t.Context()); err != nil {
			t.Errorf("second Detach: %v", err)
		}
		want := []string{"open h0", "release failed h0", "release h0", "close h0"}
		if diff := cmp.Diff(log.all(), want); diff != "" {
			t.Errorf("lifecycle (-got +want):\n%s", diff)
		}
	})
}

// Attach after a failed release closes the unreleased adapter: the new one
// takes the pane over.
func TestAttachClosesAnAdapterLeftUnreleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log := &eventLog{}
		d := &fakeDriver{def: true, tag: "h", events: log, releaseFails: 1}
		r := mustNew(t, testOptions(t, register(d)))
		store := session.NewStore()
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		d.adapters()[0].next(t)
		_ = r.Detach(t.Context())
		d.releaseFails = 0
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		d.adapters()[1].next(t)
		// h0 is closed once h1, which takes the pane over, has opened,
		// before h1 starts reporting.
		want := []string{"open h0", "release failed h0", "open h1", "close h0"}
		if diff := cmp.Diff(log.all(), want); diff != "" {
			t.Errorf("lifecycle (-got +want):\n%s", diff)
		}
	})
}

// An adapter a Detach left unreleased is closed without a release only
// when a new adapter of its own takes the pane over. When the next Attach
// runs none in its place (the settings now turn it off), the adapter is
// kept, and the next Detach releases it: the pane is never left claimed
// behind a Detach that returns nil.
func TestAttachKeepsAnUnreleasedAdapterWithoutASuccessor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log := &eventLog{}
		d := &fakeDriver{def: true, tag: "h", events: log, releaseFails: 1}
		name := register(d)
		r := mustNew(t, testOptions(t, name))
		store := session.NewStore()
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		d.adapters()[0].next(t)
		if err := r.Detach(t.Context()); err == nil {
			t.Fatal("the first Detach released; want its release to fail")
		}
		writeSettings(t, r, `{"`+name+`": {"enabled": false}}`)
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		if err := r.Detach(t.Context()); err != nil {
			t.Errorf("second Detach: %v", err)
		}
		want := []string{"open h0", "release failed h0", "release h0", "close h0"}
		if diff := cmp.Diff(log.all(), want); diff != "" {
			t.Errorf("lifecycle (-got +want):\n%s", diff)
		}
	})
}

// Two adapters run on their own goroutines: one stuck in Report neither
// delays the other's deliveries nor its release.
func TestTwoAdaptersDoNotWaitForEachOther(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stuck := &fakeDriver{def: true, tag: "herdr", events: &eventLog{}}
		free := &fakeDriver{def: true, tag: "tmux", events: &eventLog{}}
		r := mustNew(t, testOptions(t, register(stuck), register(free)))
		store := session.NewStore()
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		s, f := stuck.adapters()[0], free.adapters()[0]
		s.next(t)
		f.next(t)
		unblock := make(chan struct{})
		s.ignoreCtx.Store(true)
		s.setBlock(unblock)
		store.AgentStart()
		if got := f.next(t); got != working {
			t.Errorf("free adapter got %v, want working", got)
		}
		store.PromptStart("p", session.PromptApproval)
		if got := f.next(t); got != blocked {
			t.Errorf("free adapter got %v, want blocked while the other is stuck", got)
		}
		_ = r.Detach(context.Background())
		if f.releases() != 1 || !f.closed.Load() {
			t.Error("the free adapter was not released and closed while the other was stuck")
		}
		close(unblock)
		synctest.Wait()
		// Back past the budget, it is left for the next Detach.
		if err := r.Detach(context.Background()); err != nil || s.releases() != 1 || !s.closed.Load() {
			t.Errorf("second Detach: %v, released %d, closed %t; want the stuck adapter released and closed", err, s.releases(), s.closed.Load())
		}
	})
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
	if got := e.Adapters[0]; got.Lifecycle != LifecycleInactive || !strings.Contains(got.Why, "FAKE_ENV is not set") {
		t.Errorf("explain %+v, want inactive with the reason", got)
	}
	if got := e.Adapters[1]; got.Lifecycle != LifecycleDisabled || got.EnabledBy != settings.LayerDefault {
		t.Errorf("explain %+v, want disabled by default", got)
	}
	if text := e.String(); !strings.Contains(text, "no adapter runs here: nothing is reported") {
		t.Errorf("Explain outside every workspace does not say that nothing runs:\n%s", text)
	}
	if len(d.adapters()) != 0 {
		t.Error("an adapter whose Check failed was opened")
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
		store.SetWorkflows(session.Workflows{Unknown: true})
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

// hookedSource calls hook once, right after the registry subscribes.
type hookedSource struct {
	*session.Store
	hook func()
}

func (s hookedSource) Subscribe(notify func()) func() {
	cancel := s.Store.Subscribe(notify)
	s.hook()
	return cancel
}

// Changes made while Attach runs (after it subscribed, while it opens an
// adapter, while the first report is in flight) are never lost: each one
// reaches the adapter, in order.
func TestChangeDuringAttachIsDelivered(t *testing.T) {
	store := session.NewStore()
	src := hookedSource{Store: store, hook: store.AgentStart} // before any adapter opens
	d := &fakeDriver{def: true, onOpen: func() {
		store.PromptStart("p", session.PromptApproval) // while the adapter opens
	}}
	opts := testOptions(t, register(d))
	opts.StaticSettings = false
	r := mustNew(t, opts)
	if err := r.Attach(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	a := d.adapters()[0]
	if got := a.next(t); got != blocked {
		t.Errorf("first report %v, want blocked: every change before the first pull is in it", got)
	}
	block := make(chan struct{})
	a.setBlock(block)
	store.PromptEnd("p")
	a.inReport(t)
	a.inReport(t)        // drain the first report's entry
	store.AgentSettled() // while the second report is in flight
	close(block)
	if got := a.next(t); got != working {
		t.Errorf("second report %v, want working", got)
	}
	if got := a.next(t); got != idle {
		t.Errorf("third report %v, want idle: the change made while the report was in flight", got)
	}
}

func TestScrubEnvAsksThisRegistrysDrivers(t *testing.T) {
	env := []string{"HERDR_ENV=1", "HERDR_PANE_ID=w1:p1", "PATH=/bin", "HERDRX=keep", "X=1"}
	tests := []struct {
		name    string
		drivers map[string]adapter.Driver
		want    []string
	}{
		{"every built-in driver", nil, []string{"PATH=/bin", "HERDRX=keep", "X=1"}},
		{"a driver of its own, without the built-in ones", map[string]adapter.Driver{"own": &scrubX{}},
			[]string{"HERDR_ENV=1", "HERDR_PANE_ID=w1:p1", "PATH=/bin", "HERDRX=keep"}},
		{"a driver that panics", map[string]adapter.Driver{"own": &scrubX{panics: true}}, env},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustNew(t, Options{App: "x", Env: []string{}, Drivers: tt.drivers, Settings: settings.Options{Home: t.TempDir()}})
			if diff := cmp.Diff(r.ScrubEnv(slices.Clone(env)), tt.want); diff != "" {
				t.Errorf("ScrubEnv (-got +want):\n%s", diff)
			}
		})
	}
}

// scrubX is a driver that scrubs X (or panics doing it).
type scrubX struct {
	fakeDriver
	panics bool
}

func (d *scrubX) ScrubEnv(e adapter.Env) adapter.Env {
	if d.panics {
		panic("scrub")
	}
	return e.Without(func(k string) bool { return k == "X" })
}

// writeSettings writes the global settings file of a registry made by
// testOptions, atomically.
func writeSettings(t testing.TB, r *Registry, body string) {
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

// A done context whose release fails: the error names the failure.
func TestDetachWithADoneContextSaysWhatFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &fakeDriver{def: true, releaseFails: 1}
		name := register(d)
		r := mustNew(t, testOptions(t, name))
		if err := r.Attach(t.Context(), session.NewStore()); err != nil {
			t.Fatal(err)
		}
		d.adapters()[0].next(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err := r.Detach(ctx)
		for _, want := range []string{"fake release failure", "registry: detach " + name} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Detach = %v, want it to mention %q", err, want)
			}
		}
	})
}

// A refresh that fails is retried like any failed delivery, and refreshing
// resumes once it is delivered.
func TestFailedRefreshIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &fakeDriver{def: true, refresh: 10 * time.Second}
		r := mustNew(t, testOptions(t, register(d)))
		if err := r.Attach(t.Context(), session.NewStore()); err != nil {
			t.Fatal(err)
		}
		a := d.adapters()[0]
		a.next(t)
		a.fail.Store(1)
		time.Sleep(10*time.Second + retryInitial) // the refresh fails, the retry delivers
		if got := a.next(t); got != idle {
			t.Errorf("retried refresh delivered %v, want idle", got)
		}
		time.Sleep(10 * time.Second)
		a.next(t)       // refreshing resumed
		synctest.Wait() // the worker has counted the delivery
		s := r.entries[0]
		if c := r.Explain().Adapters[0].Counters; c.Failed != 1 || s.retries.Load() != 1 || s.refreshes.Load() != 1 {
			t.Errorf("counters %+v, %d retries, %d refreshes; want 1 failed, 1 retry, 1 refresh (only the delivered refresh counts)", c, s.retries.Load(), s.refreshes.Load())
		}
	})
}

// A report the workspace answers slowly (500 ms) is waited for, never
// overtaken: the release follows its answer, and Detach reports no error.
func TestDetachWaitsForASlowReportThenReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log := &eventLog{}
		r, store, a := attachedDriver(t, &fakeDriver{def: true, tag: "h", events: log})
		unblock := make(chan struct{})
		a.ignoreCtx.Store(true)
		a.setBlock(unblock)
		store.AgentStart()
		a.inReport(t)
		go func() {
			time.Sleep(500 * time.Millisecond) // within half the budget
			log.add("answered h0")
			close(unblock)
		}()
		start := time.Now()
		if err := r.Detach(context.Background()); err != nil {
			t.Errorf("Detach: %v", err)
		}
		if took := time.Since(start); took != 500*time.Millisecond {
			t.Errorf("Detach took %v, want the 500 ms the report took", took)
		}
		want := []string{"open h0", "answered h0", "release h0", "close h0"}
		if diff := cmp.Diff(log.all(), want); diff != "" {
			t.Errorf("lifecycle (-got +want):\n%s", diff)
		}
	})
}

// The release budget bounds every adapter's release, whatever Detach's
// ctx: a workspace taking 1 s per call still receives it, a hung one costs
// the budget's release share, not the ctx's 30 s.
func TestDetachBoundsTheRelease(t *testing.T) {
	releaseShare := defaultReleaseTimeout - defaultReleaseTimeout/closeShare
	for _, tt := range []struct {
		name     string
		ctx      func() (context.Context, context.CancelFunc)
		takes    time.Duration
		took     time.Duration
		released bool
	}{
		{"slow workspace, 1 s per call", noDeadline, time.Second, time.Second, true},
		{"hung workspace", noDeadline, -1, releaseShare, false},
		{"hung workspace, ctx of 30 s", within(30 * time.Second), -1, releaseShare, false},
		{"hung workspace, done ctx", doneCtx, -1, releaseShare, false},
		{"hung workspace, ctx of 10 ms", within(10 * time.Millisecond), -1, releaseShare, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := &fakeDriver{def: true, releaseTakes: tt.takes}
				r, err := New(testOptions(t, register(d)))
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Attach(t.Context(), session.NewStore()); err != nil {
					t.Fatal(err)
				}
				a := d.adapters()[0]
				a.next(t)
				ctx, cancel := tt.ctx()
				defer cancel()
				start := time.Now()
				err = r.Detach(ctx)
				if took := time.Since(start); took != tt.took {
					t.Errorf("Detach took %v, want %v", took, tt.took)
				}
				if got := a.releases() == 1; got != tt.released || (err == nil) != tt.released {
					t.Errorf("released %t, Detach error %v; want released %t", got, err, tt.released)
				}
				if !tt.released {
					a.releaseTakes = 0 // the workspace is back: the next Detach releases
					if err := r.Detach(context.Background()); err != nil || a.releases() != 1 || !a.closed.Load() {
						t.Errorf("second Detach: %v, released %d, closed %t; want the release made", err, a.releases(), a.closed.Load())
					}
				}
			})
		})
	}
}

// With the default budget, a workspace taking 500 ms per call answers the
// report in flight and still receives the release after it (the figure
// Options.ReleaseTimeout quotes).
func TestDetachReleasesASlowWorkspaceWithAReportInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := attachedDriver(t, &fakeDriver{def: true, releaseTakes: 500 * time.Millisecond})
		slow := make(chan struct{})
		a.ignoreCtx.Store(true)
		a.setBlock(slow)
		store.AgentStart()
		a.inReport(t)
		go func() {
			time.Sleep(500 * time.Millisecond) // the workspace answers the report
			close(slow)
		}()
		if err := r.Detach(context.Background()); err != nil {
			t.Errorf("Detach: %v", err)
		}
		if a.releases() != 1 || !a.closed.Load() {
			t.Errorf("released %d times, closed %t; want released once and closed", a.releases(), a.closed.Load())
		}
	})
}

func noDeadline() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

func doneCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx, cancel
}

func within(d time.Duration) func() (context.Context, context.CancelFunc) {
	return func() (context.Context, context.CancelFunc) { return context.WithTimeout(context.Background(), d) }
}

// A notification that leaves the report as it is (a token count, a
// streamed chunk) does not cut a failed delivery's backoff short: only the
// retry timer, or a new report, calls the adapter again.
func TestUnchangedNotificationsKeepTheBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := attachedFake(t)
		a.fail.Store(1 << 30)
		store.AgentStart()
		for range 100 { // 10 s of notifications, every 100 ms
			time.Sleep(100 * time.Millisecond)
			r.notify()
		}
		synctest.Wait()
		// The first report, the failed working, and the retries at 0.5, 1.5,
		// 3.5 and 7.5 s.
		if n := a.calls.Load(); n != 6 {
			t.Errorf("Report called %d times in 10 s of failures, want 6", n)
		}
	})
}

// The grace after ctx is for cancelled deliveries. A worker with none in
// flight (here busy in RefreshInterval; on a loaded machine, not yet
// scheduled) never calls Report again, so Detach waits for its release,
// bounded by the release deadline, even with a done ctx.
func TestDetachWaitsForAWorkerWithNoDeliveryInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := attachedFake(t)
		// The worker is idle, past the RefreshInterval of the first report,
		// before the block is set: only the working report's blocks.
		synctest.Wait()
		busy := make(chan struct{})
		a.setRefreshBlock(busy)
		store.AgentStart()
		a.next(t)
		synctest.Wait() // the worker is in RefreshInterval
		go func() {
			time.Sleep(defaultReleaseTimeout / 2) // within the release share of the budget
			close(busy)
		}()
		ctx, cancel := context.WithCancel(t.Context())
		cancel() // a host's signal context, already done
		if err := r.Detach(ctx); err != nil {
			t.Errorf("Detach: %v", err)
		}
		if a.releases() != 1 || !a.closed.Load() {
			t.Errorf("released %d, closed %t; want released once and closed", a.releases(), a.closed.Load())
		}
	})
}

// The noop adapter is a template: Explain leaves it out until a settings
// file enables it.
func TestExplainShowsNoopOnlyWhenEnabled(t *testing.T) {
	r := mustNew(t, testOptions(t, "herdr", "noop"))
	names := func() []string {
		var n []string
		for _, a := range r.Explain().Adapters {
			n = append(n, a.Name)
		}
		return n
	}
	if diff := cmp.Diff(names(), []string{"herdr"}); diff != "" {
		t.Errorf("adapters in Explain, noop not enabled (-got +want):\n%s", diff)
	}
	writeSettings(t, r, `{"noop": {"enabled": true}}`)
	if diff := cmp.Diff(names(), []string{"herdr", "noop"}); diff != "" {
		t.Errorf("adapters in Explain, noop enabled (-got +want):\n%s", diff)
	}
}
