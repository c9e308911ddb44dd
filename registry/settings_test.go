package registry

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/settingsengine"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// applySettings writes body as the global settings file and applies it as
// the settings watcher's callback does, synchronously.
func applySettings(t testing.TB, r *Registry, body string) {
	t.Helper()
	writeSettings(t, r, body)
	so := r.settingsOptions()
	so.Logger = hclog.NewNullLogger()
	cur, err := settingsengine.Load(so)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	gen := r.gen
	r.mu.Unlock()
	r.onSettings(gen, cur)
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
	r := mustNew(t, testOptions(t, name))
	store := session.NewStore()
	store.AgentStart()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	d.adapters()[0].next(t)

	// Off: drained, released, closed.
	applySettings(t, r, `{"other": 1, "`+name+`": {"enabled": false}}`)
	if got := r.Explain().Adapters[0]; got.Lifecycle != LifecycleDisabled || got.EnabledBy != settings.LayerGlobal {
		t.Errorf("after disabling: %+v", got)
	}
	// On again: a new adapter reports the current state at once.
	store.PromptStart("p", session.PromptApproval)
	applySettings(t, r, `{"`+name+`": {"enabled": true}}`)
	if got := d.adapters()[1].next(t); got != blocked {
		t.Errorf("re-enabled adapter first reported %v, want the current (blocked) state", got)
	}
	// Another key changed: a successor is opened, the old one closed, not released.
	applySettings(t, r, `{"`+name+`": {"enabled": true, "color": "green"}}`)
	if s := d.adapters()[2].settings; s != `{"color":"green"}` {
		t.Errorf("successor got settings %s", s)
	}
	d.adapters()[2].next(t)
	// Bad settings: the running adapter is kept and Explain says why.
	applySettings(t, r, `{"`+name+`": {"enabled": true, "color": "bad"}}`)
	if got := r.Explain().Adapters[0]; got.Lifecycle != LifecycleActive || !strings.HasPrefix(got.Why, "settings not applied") || !strings.Contains(got.Why, "must not be bad") {
		t.Errorf("after bad settings: %+v", got)
	}
	log.wait(t, "close h1")
	want := []string{"open h0", "release h0", "close h0", "open h1", "open h2", "close h1"}
	if diff := cmp.Diff(log.all(), want); diff != "" {
		t.Errorf("lifecycle (-got +want):\n%s", diff)
	}
}

// The entry leaves "active" before the adapter is stopped: Explain never
// shows an adapter that is closing, or closed, as active.
func TestExplainNeverShowsAClosedAdapterActive(t *testing.T) {
	var r *Registry
	var during Lifecycle
	d := &fakeDriver{def: true}
	d.onClose = func() { during = r.Explain().Adapters[0].Lifecycle }
	name := register(d)
	r = mustNew(t, testOptions(t, name))
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	d.adapters()[0].next(t)
	applySettings(t, r, `{"`+name+`": {"enabled": false}}`)
	if during != LifecycleDisabled {
		t.Errorf("Explain during Close shows %v, want disabled", during)
	}
}

// Disabling an adapter while a slow call is in flight, then detaching,
// releases the pane.
func TestDisableDuringASlowCallThenDetachReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &fakeDriver{def: true}
		name := register(d)
		r := mustNew(t, testOptions(t, name))
		store := session.NewStore()
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		a := d.adapters()[0]
		a.next(t)
		slow := make(chan struct{})
		a.ignoreCtx.Store(true) // a slow call that finishes on its own
		a.setBlock(slow)
		store.AgentStart()
		synctest.Wait()
		applied := make(chan struct{})
		go func() {
			applySettings(t, r, `{"`+name+`": {"enabled": false}}`)
			close(applied)
		}()
		synctest.Wait() // the settings change waits for the slow call
		go func() {
			time.Sleep(50 * time.Millisecond) // the slow call ends within the grace
			close(slow)
		}()
		if err := r.Detach(context.Background()); err != nil {
			t.Errorf("Detach: %v", err)
		}
		<-applied
		if a.releases() != 1 || !a.closed.Load() {
			t.Errorf("released %d, closed %t; want the pane released and the adapter closed", a.releases(), a.closed.Load())
		}
	})
}

// Turning an adapter off waits for its release within the release budget,
// not for ever: an adapter stuck in Report, deaf to its ctx, does not hold
// the settings watcher (and every later settings change) hostage. The
// release it could not make is left for Detach.
func TestTurningAnAdapterOffIsBoundedByTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, store, a := attachedFake(t)
		name := r.entries[0].name
		hung := make(chan struct{})
		a.ignoreCtx.Store(true)
		a.setBlock(hung)
		store.AgentStart()
		a.inReport(t)
		applied := make(chan struct{})
		go func() {
			applySettings(t, r, `{"`+name+`": {"enabled": false}}`)
			close(applied)
		}()
		<-applied // without a bound, every goroutine blocks here for good
		if got := r.Explain().Adapters[0].Lifecycle; got != LifecycleDisabled {
			t.Errorf("lifecycle %v, want disabled", got)
		}
		close(hung) // the adapter returns at last
		synctest.Wait()
		if err := r.Detach(context.Background()); err != nil {
			t.Errorf("Detach: %v", err)
		}
		if a.releases() != 1 || !a.closed.Load() {
			t.Errorf("released %d, closed %t; want the pane released and the adapter closed", a.releases(), a.closed.Load())
		}
	})
}

// A Detach during a settings change that is opening a successor preempts
// it: the old adapter is released, and the successor, once its Open
// returns, is closed without ever reporting.
func TestDetachPreemptsASettingsChange(t *testing.T) {
	log := &eventLog{}
	opening := make(chan struct{})
	unblock := make(chan struct{})
	d := &fakeDriver{def: true, tag: "h", events: log, keys: []string{"color"}}
	name := register(d)
	r := mustNew(t, testOptions(t, name))
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	d.adapters()[0].next(t)
	d.onOpen = func() { close(opening); <-unblock }
	applied := make(chan struct{})
	go func() {
		applySettings(t, r, `{"`+name+`": {"color": "green"}}`)
		close(applied)
	}()
	<-opening
	if err := r.Detach(t.Context()); err != nil {
		t.Errorf("Detach: %v", err)
	}
	close(unblock)
	<-applied
	log.wait(t, "close h1")
	want := []string{"open h0", "release h0", "close h0", "open h1", "close h1"}
	if diff := cmp.Diff(log.all(), want); diff != "" {
		t.Errorf("lifecycle (-got +want):\n%s", diff)
	}
	if n := d.adapters()[1].calls.Load(); n != 0 {
		t.Errorf("the preempted successor reported %d times", n)
	}
}

// With the real settings watcher: an edit turns the adapter off and on.
func TestSettingsWatcherAppliesEdits(t *testing.T) {
	log := &eventLog{}
	d := &fakeDriver{def: true, tag: "h", events: log}
	name := register(d)
	opts := testOptions(t, name)
	opts.StaticSettings = false
	opts.tuneSettings = func(o *settingsengine.Options) { o.Debounce, o.Grace = 10*time.Millisecond, 50*time.Millisecond }
	r := mustNew(t, opts)
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	d.adapters()[0].next(t)
	writeSettings(t, r, `{"`+name+`": {"enabled": false}}`)
	log.wait(t, "close h0")
	writeSettings(t, r, `{"`+name+`": {"enabled": true}}`)
	log.wait(t, "open h1")
	d.adapters()[1].next(t)
	want := []string{"open h0", "release h0", "close h0", "open h1"}
	if diff := cmp.Diff(log.all(), want); diff != "" {
		t.Errorf("lifecycle (-got +want):\n%s", diff)
	}
}

// A trust function that hangs on a reload neither delays nor skips the
// release (the watcher closes beside the releases, and Watcher.Close does
// not wait for a trust call).
func TestHungTrustFunctionDoesNotBlockTheRelease(t *testing.T) {
	log := &eventLog{}
	d := &fakeDriver{def: true, tag: "h", events: log}
	name := register(d)
	opts := testOptions(t, name)
	opts.StaticSettings = false
	opts.tuneSettings = func(o *settingsengine.Options) { o.Debounce = 10 * time.Millisecond }
	opts.Settings.ProjectRoot = t.TempDir()
	hung := make(chan struct{})
	unhang := make(chan struct{})
	calls := 0
	opts.Settings.Trust = func(string) (bool, error) {
		calls++ // Load and Watch at Attach, then the reload
		if calls > 2 {
			close(hung)
			<-unhang
		}
		return true, nil
	}
	r := mustNew(t, opts)
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	d.adapters()[0].next(t)
	writeSettings(t, r, `{"other": true}`) // any event reloads, asking Trust again
	<-hung
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if err := r.Detach(ctx); err != nil {
		t.Errorf("Detach with the trust function hung: %v", err)
	}
	if a := d.adapters()[0]; a.releases() != 1 || !a.closed.Load() {
		t.Errorf("released %d, closed %t with the trust function hung; want released and closed", a.releases(), a.closed.Load())
	}
	close(unhang)
}

func TestExplainBeforeAttach(t *testing.T) {
	inactive := &fakeDriver{def: true, inactive: errors.Join(adapter.ErrInactive, errors.New("not in a pane"))}
	off := &fakeDriver{def: false}
	on := &fakeDriver{def: true}
	r := mustNew(t, testOptions(t, register(inactive), register(off), register(on)))
	e := r.Explain()
	var got [][2]string
	for _, a := range e.Adapters {
		got = append(got, [2]string{string(a.Lifecycle), a.Why})
	}
	want := [][2]string{
		{"inactive", "adapter inactive\nnot in a pane"},
		{"disabled", disabledWhy(settings.LayerDefault) + "; it applies here"},
		{"not_attached", "it applies here and runs when reporting is attached"},
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("lifecycles (-got +want):\n%s", diff)
	}
	if len(inactive.adapters())+len(off.adapters())+len(on.adapters()) != 0 {
		t.Error("Explain before Attach opened an adapter")
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

// Explanation is plain data: json.Marshal renders it, with names (no
// numbers, no spaces) for every enumerated value.
func TestExplainJSON(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		failing := &fakeDriver{def: true, openErr: func(adapter.Params) error { return errors.New("bad colour") }}
		d := &fakeDriver{def: true}
		r := mustNew(t, testOptions(t, register(failing), register(d)))
		store := session.NewStore()
		store.AgentStart()
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		d.adapters()[0].next(t)
		synctest.Wait() // the delivery is recorded
		data, err := json.Marshal(r.Explain())
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Adapters []struct {
				Lifecycle  string `json:"lifecycle"`
				EnabledBy  string `json:"enabled_by"`
				LastReport *struct {
					State  string `json:"state"`
					Reason string `json:"reason"`
				} `json:"last_report"`
			} `json:"adapters"`
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if a := got.Adapters[0]; a.Lifecycle != "open_failed" || a.EnabledBy != "default" || a.LastReport != nil {
			t.Errorf("failing adapter in JSON: %+v", a)
		}
		if a := got.Adapters[1]; a.Lifecycle != "active" || a.LastReport == nil || a.LastReport.State != "working" || a.LastReport.Reason != "executing" {
			t.Errorf("running adapter in JSON: %+v (%s)", a, data)
		}
		var back Explanation
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("the JSON does not decode back into an Explanation: %v", err)
		}
		if *back.Adapters[1].LastReport != working {
			t.Errorf("decoded last report %v, want %v", *back.Adapters[1].LastReport, working)
		}
	})
}

// capturingDriver is a fakeDriver that shows each Open's params to a test.
type capturingDriver struct {
	*fakeDriver
	opened func(adapter.Params)
}

func (d capturingDriver) Open(ctx context.Context, p adapter.Params) (adapter.Adapter, error) {
	d.opened(p)
	return d.fakeDriver.Open(ctx, p)
}

// The registry passes each diagnostic kind on once per claim (one Open of
// the adapter: logged, given to OnDiagnostic, kept for Explain) and counts
// every one, as typed data; a new claim passes it on again.
func TestDiagnosticsOncePerKindAndClaimCountedByTheRegistry(t *testing.T) {
	fd := &fakeDriver{def: true, keys: []string{"x"}}
	var mu sync.Mutex
	var diagnose func(adapter.Diagnostic)
	d := capturingDriver{fd, func(p adapter.Params) {
		mu.Lock()
		diagnose = p.Diagnose
		mu.Unlock()
	}}
	opts := testOptions(t)
	opts.Drivers = map[string]adapter.Driver{"h": d}
	var got []adapter.Kind
	opts.OnDiagnostic = func(d adapter.Diagnostic) {
		mu.Lock()
		got = append(got, d.Kind)
		mu.Unlock()
	}
	r := mustNew(t, opts)
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	fd.adapters()[0].next(t)
	emit := func(k adapter.Kind) {
		mu.Lock()
		f := diagnose
		mu.Unlock()
		f(adapter.NewDiagnostic("h", k, "call failed"))
	}
	for range 3 {
		emit(adapter.KindTimeout)
	}
	emit(adapter.KindProtocolRejected)
	st := r.Explain().Adapters[0]
	counts := map[adapter.Kind]uint64{}
	for _, d := range st.Diagnostics {
		counts[d.Kind] = d.Count
	}
	if diff := cmp.Diff(counts, map[adapter.Kind]uint64{adapter.KindTimeout: 3, adapter.KindProtocolRejected: 1}); diff != "" {
		t.Errorf("counts (-got +want):\n%s", diff)
	}
	if len(st.Diagnostics) != 2 {
		t.Errorf("kept %d diagnostics, want 2 (one per kind)", len(st.Diagnostics))
	}
	// A new claim: the adapter is opened again with a new section.
	applySettings(t, r, `{"h": {"x": 1}}`)
	fd.adapters()[1].next(t)
	emit(adapter.KindTimeout)
	mu.Lock()
	defer mu.Unlock()
	want := []adapter.Kind{adapter.KindTimeout, adapter.KindProtocolRejected, adapter.KindTimeout}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("passed on (-got +want):\n%s", diff)
	}
	if c := diagCount(r.Explain().Adapters[0], adapter.KindTimeout); c != 4 {
		t.Errorf("timeout count %d, want 4", c)
	}
}

func TestExplainShowsAFileError(t *testing.T) {
	d := &fakeDriver{def: true}
	name := register(d)
	opts := testOptions(t, name)
	opts.StaticSettings = false
	r := mustNew(t, opts)
	writeSettings(t, r, `{"`+name+`": {"enabled": tru`)
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	d.adapters()[0].next(t)
	if f := r.Explain().Files[0]; f.Condition != settings.ConditionError || f.Err == "" {
		t.Errorf("settings file %+v, want it in error with the reason", f)
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

func TestSettingsHomeComesFromEnv(t *testing.T) {
	home := t.TempDir()
	r := mustNew(t, Options{App: "paneapp", Env: []string{"HOME=" + home}, Drivers: pick(register(&fakeDriver{}))})
	want := filepath.Join(home, ".paneapp", "agent", "settings.json")
	if got := r.Explain().Files[0].Path; got != want {
		t.Errorf("global settings at %s, want %s (from the given HOME)", got, want)
	}
}

// A trust function that hangs is called once, not once per Explain or
// Attach: each settingsengine.Load would wait for it again and leave one more
// goroutine in the host's function.
func TestHungTrustFunctionIsCalledOnce(t *testing.T) {
	d := &fakeDriver{def: true}
	opts := testOptions(t, register(d))
	opts.Settings.ProjectRoot = t.TempDir()
	unhang := make(chan struct{})
	var calls atomic.Int32
	opts.Settings.Trust = func(string) (bool, error) {
		calls.Add(1)
		<-unhang
		return true, nil
	}
	r := mustNew(t, opts)
	for range 3 {
		r.Explain()
	}
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	if err := r.Detach(t.Context()); err != nil {
		t.Fatal(err)
	}
	r.Explain()
	if n := calls.Load(); n != 1 {
		t.Errorf("the hung trust function was called %d times, want 1", n)
	}
	close(unhang)
}

// A disabled adapter's Why follows the layer that now turns it off.
func TestDisabledWhyFollowsTheLayer(t *testing.T) {
	d := &fakeDriver{def: false}
	name := register(d)
	r := mustNew(t, testOptions(t, name))
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		body string
		want settings.Layer
	}{
		{`{}`, settings.LayerDefault},
		{`{"` + name + `": {"enabled": false}}`, settings.LayerGlobal},
		{`{}`, settings.LayerDefault},
	} {
		applySettings(t, r, tt.body)
		a := r.Explain().Adapters[0]
		if a.Lifecycle != LifecycleDisabled || a.EnabledBy != tt.want || !strings.HasPrefix(a.Why, disabledWhy(tt.want)) {
			t.Errorf("after %s: %s by %s, why %q; want disabled by %s", tt.body, a.Lifecycle, a.EnabledBy, a.Why, tt.want)
		}
	}
}

// What the registry hands an adapter's Open beyond its section: the host's
// terminal (Options.Terminal) and whether a layer set "enabled": true.
func TestOpenParams(t *testing.T) {
	for _, tt := range []struct {
		name   string
		def    bool
		body   string // global settings; %s is the adapter's name
		forced bool
	}{
		{"on by default, no setting", true, `{}`, false},
		{"on by default, enabled true", true, `{"%s": {"enabled": true}}`, true},
		{"off by default, enabled true", false, `{"%s": {"enabled": true}}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []adapter.Params
			d := &fakeDriver{def: tt.def, openErr: func(p adapter.Params) error {
				got = append(got, p)
				return nil
			}}
			name := register(d)
			opts := testOptions(t, name)
			term := &strings.Builder{}
			opts.Terminal = term
			r := mustNew(t, opts)
			writeSettings(t, r, strings.ReplaceAll(tt.body, "%s", name))
			if err := r.Attach(t.Context(), session.NewStore()); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("Open called %d times, want 1", len(got))
			}
			if got[0].Terminal != term || got[0].Forced != tt.forced {
				t.Errorf("Open got Terminal %v, Forced %t; want the host's terminal, Forced %t", got[0].Terminal, got[0].Forced, tt.forced)
			}
		})
	}
}

// An adapter that applies only when forced on ("enabled": true, as the
// terminal adapter in a terminal it does not know) is watched for: forcing
// it on in the settings starts it live, even when nothing else runs.
func TestForcingAnAdapterOnStartsItLive(t *testing.T) {
	log := &eventLog{}
	d := &fakeDriver{def: true, needsForce: true, tag: "t", events: log}
	name := register(d)
	opts := testOptions(t, name)
	opts.StaticSettings = false
	opts.tuneSettings = func(o *settingsengine.Options) { o.Debounce = 5 * time.Millisecond }
	r := mustNew(t, opts)
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	if got := r.Explain().Adapters[0].Lifecycle; got != LifecycleInactive {
		t.Fatalf("before forcing: %s, want inactive", got)
	}
	writeSettings(t, r, `{"`+name+`": {"enabled": true}}`)
	log.wait(t, "open t0")
	d.adapters()[0].next(t)
}

// A settings change that waits for Attach to finish gives up when a Detach
// preempts that Attach, even while Attach is stuck in a driver's Open that
// ignores its ctx: otherwise closing the settings watcher, which waits for
// the change, would outlast Detach.
func TestDetachEndsASettingsChangeWaitingForAStuckAttach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opening, unblock := make(chan struct{}), make(chan struct{})
		d := &fakeDriver{def: true, onOpen: func() {
			close(opening)
			<-unblock // ignores ctx
		}}
		r := mustNew(t, testOptions(t, register(d)))
		attached := make(chan error, 1)
		go func() { attached <- r.Attach(context.Background(), session.NewStore()) }()
		<-opening
		r.mu.Lock()
		gen := r.gen
		r.mu.Unlock()
		changed := make(chan struct{})
		go func() {
			r.onSettings(gen, settingsengine.Settings{})
			close(changed)
		}()
		synctest.Wait() // the change waits for Attach
		if err := r.Detach(t.Context()); err != nil {
			t.Errorf("Detach: %v", err)
		}
		synctest.Wait()
		select {
		case <-changed:
		default:
			t.Error("the settings change still waits for the preempted Attach after Detach")
		}
		close(unblock)
		<-changed
		if err := <-attached; !errors.Is(err, errDetached) {
			t.Errorf("preempted Attach: %v, want errDetached", err)
		}
	})
}

// TestExplainShowsASettingsErrorBeforeOpen proves that, before Attach and
// for adapters not opened, Explain asks the driver's Check: an
// enabled adapter that applies but would fail to open on its settings says
// open_failed and why, as Attach then leaves it; applicability comes first,
// and a disabled adapter only mentions it.
func TestExplainShowsASettingsErrorBeforeOpen(t *testing.T) {
	colour := func(section json.RawMessage) error {
		if strings.Contains(string(section), `"nope"`) {
			return errors.New(`fake: settings: colour "nope" is not a colour`)
		}
		return nil
	}
	boom := func(json.RawMessage) error { panic("boom") }
	notInAPane := errors.Join(adapter.ErrInactive, errors.New("not in a pane"))
	tests := []struct {
		name     string
		validate func(json.RawMessage) error // the settings part of the driver's Check
		inactive error                       // the driver's Check
		section  string                      // the adapter's settings section
		attach   bool
		wantLife Lifecycle
		wantWhy  string // a substring of Why
	}{
		{name: "bad setting", validate: colour, section: `{"colour":"nope"}`,
			wantLife: LifecycleOpenFailed, wantWhy: `it applies here, but would fail to open: fake: settings: colour "nope" is not a colour`},
		{name: "good setting", validate: colour, section: `{"colour":"red"}`,
			wantLife: LifecycleNotAttached, wantWhy: "it applies here and runs when reporting is attached"},
		{name: "no validator", section: `{"colour":"nope"}`,
			wantLife: LifecycleNotAttached, wantWhy: "it applies here and runs when reporting is attached"},
		{name: "inactive comes first", validate: colour, inactive: notInAPane, section: `{"colour":"nope"}`,
			wantLife: LifecycleInactive, wantWhy: "not in a pane"},
		{name: "disabled mentions it", validate: colour, section: `{"enabled":false,"colour":"nope"}`,
			wantLife: LifecycleDisabled, wantWhy: `; it applies here, but its settings would make it fail to open: fake: settings: colour "nope"`},
		{name: "disabled while attached mentions it", validate: colour, section: `{"enabled":false,"colour":"nope"}`,
			attach: true, wantLife: LifecycleDisabled, wantWhy: `its settings would make it fail to open`},
		{name: "attach agrees", validate: colour, section: `{"colour":"nope"}`,
			attach: true, wantLife: LifecycleOpenFailed, wantWhy: `colour "nope" is not a colour`},
		{name: "panicking validator", validate: boom,
			wantLife: LifecycleOpenFailed, wantWhy: "panicked in Check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &fakeDriver{def: true, validate: tt.validate, inactive: tt.inactive, keys: []string{"colour"}}
			name := register(d)
			r := mustNew(t, testOptions(t, name))
			if tt.section != "" {
				writeSettings(t, r, `{"`+name+`":`+tt.section+`}`)
			}
			if tt.attach {
				if err := r.Attach(t.Context(), session.NewStore()); err != nil {
					t.Fatal(err)
				}
				defer r.Detach(t.Context())
			}
			st := r.Explain().Adapters[0]
			if st.Lifecycle != tt.wantLife || !strings.Contains(st.Why, tt.wantWhy) {
				t.Errorf("lifecycle %s, why %q; want %s, why containing %q", st.Lifecycle, st.Why, tt.wantLife, tt.wantWhy)
			}
			if !tt.attach && len(d.adapters()) != 0 {
				t.Error("Explain before Attach opened an adapter")
			}
		})
	}
}
