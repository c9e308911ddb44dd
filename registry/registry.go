package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// Options configure a [Registry]. Only App is required.
type Options struct {
	// App is the host application's name. It names the settings folders
	// (~/.<app>/agent/settings.json, <project>/.<app>/settings.json) and the
	// adapters' identities (Herdr's source custom:<app>). Required.
	App string
	// Logger receives the registry's and the adapters' logs. Nil is silent.
	// The registry derives its own with Named and never changes its level.
	Logger hclog.Logger
	// Host says how the agent runs. Only an interactive root session (mode
	// tui, with a UI, role root) may claim a pane.
	Host session.Host
	// Env is the environment adapters see. Nil means the process
	// environment, captured by New. When set, it also gives the home
	// directory of the settings files (HOME, or USERPROFILE on Windows)
	// unless Settings.Home is set.
	Env []string
	// OnDiagnostic, when set, receives every adapter diagnostic, in addition
	// to the logger. It is called from the adapters' goroutines, possibly
	// concurrently, and must not block.
	OnDiagnostic func(adapter.Diagnostic)
	// Settings locates the settings files and the trust decision. App,
	// Sections and Logger are filled in by the registry; leave them empty.
	Settings settings.Options
	// StaticSettings reads the settings once, at Attach, and never watches
	// the files.
	StaticSettings bool
	// Adapters restricts the registry to these registered drivers. Nil means
	// every registered driver.
	Adapters []string
	// Drivers, when set, are this registry's drivers by name, used instead
	// of the process-wide table filled by [Register] (as sql.OpenDB takes a
	// connector and bypasses sql.Register). Use it for a configured driver
	// or a test's recorder. Names follow Register's rules.
	Drivers map[string]adapter.Driver
	// Terminal is the host's controlling terminal, for adapters that signal
	// through it (OSC progress sequences on the tab). Nil keeps them
	// inactive. The host's TUI owns the screen; adapters write only
	// sequences that change no cell, each in one Write.
	Terminal io.Writer
}

var validApp = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Registry attaches pane-state reporting to a session source. Create one with
// [New]; the zero value is not usable. All methods are safe for concurrent
// use.
type Registry struct {
	opts Options
	log  hclog.Logger
	env  adapter.Env

	// ctl serialises Attach, Detach and settings changes, and guards the
	// fields below. It is a one-slot channel rather than a mutex so that
	// Attach and Detach can give up when their context ends.
	ctl chan struct{}
	// attached is true between a successful Attach and the Detach that
	// completes.
	attached    bool
	src         session.Source
	unsubscribe func()
	watcher     *settings.Watcher
	cur         settings.Settings
	order       []*slot // active slots, in the order they were opened
	// lifeCtx parents every delivery; Detach cancels it last.
	lifeCtx    context.Context
	lifeCancel context.CancelFunc
	// settingsCtx bounds a settings callback's wait for ctl; Detach cancels
	// it first, so that closing the watcher never waits on a callback that
	// waits on Detach.
	settingsCtx    context.Context
	settingsCancel context.CancelFunc

	stopping atomic.Bool    // set by Detach: intake is stopped and no settings change applies
	workers  sync.WaitGroup // every worker goroutine, and every abandoned teardown; Detach waits for them

	mu    sync.Mutex // guards slot status, fanout changes and the view below
	slots []*slot    // one per driver, sorted by name
	// view is what Explain shows of attached and cur; kept under mu so that
	// Explain never waits for a settings change in progress.
	view struct {
		attached bool
		cur      settings.Settings
		watcher  *settings.Watcher
	}
	// applyCancel cancels the settings change in progress, so that Detach
	// never waits for one that is draining a stuck adapter.
	applyCancel context.CancelFunc
	// fanout lists the running workers; the notify path reads it without a
	// lock so that publishing never waits.
	fanout atomic.Pointer[[]*worker]
}

// New returns a registry for the drivers registered now. It starts nothing.
func New(opts Options) (*Registry, error) {
	if !validApp.MatchString(opts.App) {
		return nil, fmt.Errorf("registry: Options.App %q must be 1-64 characters of letters, digits, '.', '_' or '-'", opts.App)
	}
	log := opts.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	r := &Registry{opts: opts, log: log.Named("panestate"), env: adapter.Env(opts.Env), ctl: make(chan struct{}, 1)}
	if opts.Env == nil {
		r.env = adapter.Environ()
	}
	names := opts.Adapters
	if names == nil {
		names = Drivers()
	}
	seen := make(map[string]bool)
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		d, err := lookup(name)
		if err != nil {
			return nil, err
		}
		s := &slot{name: name, driver: d, state: stateNotAttached}
		// What a driver says of itself is asked once, guarded: a driver
		// that panics here is treated as off by default, owning only
		// "enabled".
		s.def, s.keys = true, []string{"enabled"}
		r.guard(s, "EnabledByDefault", func() { s.def = adapter.EnabledByDefault(d) })
		r.guard(s, "SettingsKeys", func() { s.keys = adapter.SettingsKeys(d) })
		r.slots = append(r.slots, s)
	}
	return r, nil
}

// guard runs f, a call into adapter or driver code, and turns a panic into an
// adapter_panic diagnostic. It reports whether f panicked.
func (r *Registry) guard(s *slot, what string, f func()) (panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			panicked = true
			r.diagnose(s, adapter.NewDiagnostic(s.name, adapter.KindAdapterPanic, "%s: %v", what, p))
		}
	}()
	f()
	return false
}

// check asks s's driver whether it applies here, guarded.
func (r *Registry) check(s *slot, cur settings.Settings) (err error) {
	if r.guard(s, "Check", func() { err = adapter.Check(s.driver, r.params(s, cur)) }) {
		return fmt.Errorf("registry: driver %s panicked in Check", s.name)
	}
	return err
}

// lock takes the control lock, or gives up when ctx ends. A free lock is
// taken even when ctx has already ended.
func (r *Registry) lock(ctx context.Context) error {
	select {
	case r.ctl <- struct{}{}:
		return nil
	default:
	}
	select {
	case r.ctl <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Registry) unlock() { <-r.ctl }

// publishView copies attached and cur for Explain. r.ctl is held.
func (r *Registry) publishView() {
	r.mu.Lock()
	r.view.attached, r.view.cur, r.view.watcher = r.attached, r.cur, r.watcher
	r.mu.Unlock()
}

func (r *Registry) settingsOptions() settings.Options {
	so := r.opts.Settings
	so.App = r.opts.App
	// The environment the host gave the registry is the one that counts:
	// with a custom one, the home directory comes from it too.
	if so.Home == "" && r.opts.Env != nil {
		if home := r.env.Get("HOME"); home != "" {
			so.Home = home
		} else if home := r.env.Get("USERPROFILE"); home != "" {
			so.Home = home
		}
	}
	so.Logger = r.log.Named("settings")
	so.Sections = make([]settings.Section, 0, len(r.slots))
	for _, s := range r.slots {
		so.Sections = append(so.Sections, settings.Section{Name: s.name, Keys: s.keys[1:]})
	}
	return so
}

func (r *Registry) params(s *slot, cur settings.Settings) adapter.Params {
	return adapter.Params{
		Name:     s.name,
		App:      r.opts.App,
		Settings: cur.Section(s.name),
		Logger:   r.log.Named(s.name),
		Env:      r.env,
		Host:     r.opts.Host,
		Terminal: r.opts.Terminal,
		Diagnose: func(d adapter.Diagnostic) { r.diagnose(s, d) },
	}
}

// Attach starts reporting src to every enabled adapter that applies here, and
// watches the settings so that adapters can be turned on and off live. It
// reports the current state at once. ctx bounds opening the adapters only.
//
// Attach on an attached registry does nothing and returns nil. When no
// adapter applies (outside any workspace), Attach starts no goroutine, timer
// or subprocess. Settings files that cannot be read are logged and shown in
// Explain; they are not an error of Attach. Attach returns an error when src
// is nil, when ctx ends first, and after a Detach that did not complete.
func (r *Registry) Attach(ctx context.Context, src session.Source) error {
	if src == nil {
		return errors.New("registry: Attach with a nil source")
	}
	if err := r.lock(ctx); err != nil {
		return fmt.Errorf("registry: attach: %w", err)
	}
	defer r.unlock()
	if r.attached {
		if r.stopping.Load() {
			return errors.New("registry: attach: an earlier Detach did not complete; call Detach again first")
		}
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("registry: attach: %w", err)
	}
	r.stopping.Store(false)
	r.lifeCtx, r.lifeCancel = context.WithCancel(context.WithoutCancel(ctx))
	r.settingsCtx, r.settingsCancel = context.WithCancel(r.lifeCtx)
	r.src = src
	// Subscribe before any worker starts: a worker's first pull then sees
	// every change made before it, and every later change wakes it.
	r.unsubscribe = src.Subscribe(r.notify)
	so := r.settingsOptions()
	// The first read is silent: when a watcher follows, it reads the files
	// again and reports their problems once; otherwise they are logged below.
	quiet := so
	quiet.Logger = hclog.NewNullLogger()
	cur, loadErr := settings.Load(quiet)
	r.applyLocked(ctx, cur)
	if !r.opts.StaticSettings && r.watchUseful() {
		w, err := settings.Watch(so, r.onSettings)
		if err != nil {
			r.log.Warn("settings will not reload live", "error", err)
		} else {
			r.watcher = w
			// An edit between Load and Watch is in w.Current().
			r.applyLocked(ctx, w.Current())
		}
	}
	if r.watcher == nil {
		if loadErr != nil {
			r.log.Warn("settings not fully loaded; using what could be read", "error", loadErr)
		}
		for _, w := range cur.Warnings() {
			r.log.Warn("settings value ignored", "warning", w.String())
		}
	}
	if len(r.order) == 0 && r.watcher == nil {
		// Nothing runs and nothing can start: keep no subscription either.
		r.unsubscribe()
		r.unsubscribe = nil
	}
	r.attached = true
	r.publishView()
	return nil
}

// watchUseful reports whether a settings change could change what runs: some
// adapter is running, or one that would run by default and applies here is
// turned off, or one failed to open with settings that an edit could fix.
// Outside every workspace it is false, so nothing is watched. r.ctl is held.
func (r *Registry) watchUseful() bool {
	for _, s := range r.slots {
		r.mu.Lock()
		st := s.state
		r.mu.Unlock()
		switch st {
		case stateActive, stateOpenFailed:
			return true
		case stateDisabled:
			if s.def && r.check(s, r.cur) == nil {
				return true
			}
		}
	}
	return false
}

// onSettings runs on the settings watcher's goroutine.
func (r *Registry) onSettings(cur settings.Settings) {
	if r.stopping.Load() {
		return
	}
	if err := r.lock(r.settingsCtx); err != nil {
		return // Detach is closing the watcher
	}
	defer r.unlock()
	if !r.attached || r.stopping.Load() {
		return
	}
	if r.unsubscribe == nil {
		r.unsubscribe = r.src.Subscribe(r.notify)
	}
	ctx, cancel := context.WithCancel(r.lifeCtx)
	r.mu.Lock()
	r.applyCancel = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.applyCancel = nil
		r.mu.Unlock()
		cancel()
	}()
	r.applyLocked(ctx, cur)
}

// applyLocked makes the running adapters match cur. r.ctl is held.
func (r *Registry) applyLocked(ctx context.Context, cur settings.Settings) {
	r.cur = cur
	defer r.publishView()
	for _, s := range r.slots {
		if r.stopping.Load() {
			return // Detach is waiting; it stops whatever runs
		}
		enabled, from := cur.Enabled(s.name, s.def)
		section := cur.Section(s.name)
		r.mu.Lock()
		s.enabled, s.from = enabled, from
		prevSection, w := s.section, s.w
		state := s.state
		r.mu.Unlock()
		changed := string(prevSection) != string(section)

		switch {
		case w != nil && !enabled:
			r.log.Info("adapter disabled by settings", "adapter", s.name, "layer", from.String())
			if err := r.stopSlotLocked(ctx, s, true); err != nil {
				r.log.Warn("adapter did not stop cleanly", "adapter", s.name, "error", err)
			}
			r.setState(s, stateDisabled, disabledWhy(from), section)
		case w != nil && changed:
			r.reopenLocked(ctx, s, section)
		case w == nil && enabled && (state != stateInactive && state != stateOpenFailed && state != statePanicked || changed):
			r.openLocked(ctx, s, section)
		case w == nil && !enabled:
			r.setState(s, stateDisabled, disabledWhy(from), section)
		}
	}
}

func (r *Registry) setState(s *slot, st slotState, why string, section []byte) {
	r.mu.Lock()
	s.state, s.why, s.section, s.reopenErr = st, why, section, ""
	r.mu.Unlock()
}

// openLocked opens s and starts its worker.
func (r *Registry) openLocked(ctx context.Context, s *slot, section []byte) {
	a, err := r.open(ctx, s)
	if err != nil {
		if errors.Is(err, adapter.ErrInactive) {
			r.log.Debug("adapter does not apply here", "adapter", s.name, "reason", err)
			r.setState(s, stateInactive, err.Error(), section)
		} else {
			r.log.Warn("adapter failed to open", "adapter", s.name, "error", err)
			r.setState(s, stateOpenFailed, err.Error(), section)
		}
		return
	}
	r.startLocked(s, a, section)
	r.log.Info("adapter attached", "adapter", s.name)
}

// reopenLocked builds a new adapter for s with its changed settings, swaps it
// in and closes the old one. If the new one fails to open the old one keeps
// running.
func (r *Registry) reopenLocked(ctx context.Context, s *slot, section []byte) {
	a, err := r.open(ctx, s)
	if err != nil {
		r.log.Warn("adapter settings changed but the new settings failed; keeping the running adapter", "adapter", s.name, "error", err)
		r.mu.Lock()
		s.reopenErr = err.Error()
		s.section = section // do not retry the same bad settings on every reload
		r.mu.Unlock()
		return
	}
	if err := r.stopSlotLocked(ctx, s, false); err != nil {
		r.log.Warn("replaced adapter did not stop cleanly", "adapter", s.name, "error", err)
	}
	r.startLocked(s, a, section)
	r.log.Info("adapter re-opened with new settings", "adapter", s.name)
}

func (r *Registry) open(ctx context.Context, s *slot) (a adapter.Adapter, err error) {
	if r.guard(s, "Open", func() { a, err = s.driver.Open(ctx, r.params(s, r.cur)) }) {
		return nil, fmt.Errorf("registry: adapter %s panicked in Open", s.name)
	}
	if err == nil && a == nil {
		err = fmt.Errorf("registry: driver %s returned a nil adapter", s.name)
	}
	return a, err
}

func (r *Registry) startLocked(s *slot, a adapter.Adapter, section []byte) {
	w := newWorker(r, s, a, r.src)
	r.mu.Lock()
	s.w, s.state, s.why, s.section, s.reopenErr = w, stateActive, "", section, ""
	r.addFanout(w)
	r.mu.Unlock()
	r.order = append(r.order, s)
	r.workers.Go(func() { w.run(r.lifeCtx) })
	w.kick() // report the current state at once
}

// takeWorkerLocked removes s's worker from s, the fan-out and the open order,
// and returns it (nil when s has none).
func (r *Registry) takeWorkerLocked(s *slot) *worker {
	r.mu.Lock()
	w := s.w
	s.w = nil
	if w != nil {
		r.removeFanout(w)
	}
	r.mu.Unlock()
	for i, o := range r.order {
		if o == s {
			r.order = append(r.order[:i:i], r.order[i+1:]...)
			break
		}
	}
	return w
}

// stopSlotLocked drains s's worker and hands the adapter back (release when
// reporting stops for good, then close). A settings change must not wait on
// an adapter forever: the whole is bounded by teardownTimeout within ctx.
func (r *Registry) stopSlotLocked(ctx context.Context, s *slot, release bool) error {
	w := r.takeWorkerLocked(s)
	if w == nil {
		return nil
	}
	w.endIntake()
	ctx, cancel := context.WithTimeout(ctx, teardownTimeout)
	defer cancel()
	return w.finish(ctx, release)
}

// Detach stops reporting: it stops taking new states, lets each adapter
// finish the delivery in flight, releases what the adapters hold (the Herdr
// pane is handed back with a fresh sequence number), closes the adapters in
// the reverse of the order they were opened, stops watching the settings and
// waits for every goroutine it started.
//
// ctx bounds the whole. When it ends first, deliveries in flight are
// cancelled, adapters that have not returned within 50 ms are left to finish
// on their own
// (their teardown follows when they do), releases not yet made are skipped,
// and the error says so. Reporting has stopped either way: from the first
// moment of Detach no new state reaches any adapter. If ctx ends before
// Detach could even start (a settings change was stopping an adapter), the
// registry stays attached with reporting stopped; call Detach again.
//
// Detach is idempotent, safe on a registry never attached, and safe to call
// concurrently with anything else. Errors are joined.
func (r *Registry) Detach(ctx context.Context) error {
	// Stop intake first, without the control lock, which a settings change
	// may hold: from here on no state reaches any adapter.
	r.stopping.Store(true)
	r.mu.Lock()
	r.fanout.Store(nil)
	if r.applyCancel != nil {
		r.applyCancel() // a settings change draining a stuck adapter gives up
	}
	r.mu.Unlock()

	if err := r.lock(ctx); err != nil {
		return fmt.Errorf("registry: detach: %w (reporting has stopped; call Detach again to release)", err)
	}
	defer r.unlock()
	if !r.attached {
		return nil
	}
	var errs []error
	if r.unsubscribe != nil {
		r.unsubscribe()
		r.unsubscribe = nil
	}
	// A settings callback waiting for the lock gives up, so closing the
	// watcher does not wait on us.
	r.settingsCancel()
	if w := r.watcher; w != nil {
		r.watcher = nil
		closed := make(chan error, 1)
		go func() { closed <- w.Close() }()
		select {
		case err := <-closed:
			if err != nil {
				errs = append(errs, err)
			}
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("registry: detach: closing the settings watcher: %w", ctx.Err()))
		}
	}
	// End every adapter's intake at once, then drain, release and close them
	// newest first, all under the one ctx.
	var ws []*worker
	for i := len(r.order) - 1; i >= 0; i-- {
		if w := r.takeWorkerLocked(r.order[i]); w != nil {
			w.endIntake()
			ws = append(ws, w)
		}
	}
	for _, w := range ws {
		if err := w.finish(ctx, true); err != nil {
			errs = append(errs, fmt.Errorf("registry: detach %s: %w", w.s.name, err))
		}
	}
	// Workers that stopped on their own (after a panic), or were left to
	// finish, may still be tearing their adapters down.
	idle := make(chan struct{})
	go func() { r.workers.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("registry: detach: waiting for adapters: %w", ctx.Err()))
	}
	r.mu.Lock()
	for _, s := range r.slots {
		s.state, s.why, s.section = stateNotAttached, "", nil
	}
	r.mu.Unlock()
	r.order = nil
	r.lifeCancel()
	r.attached = false
	r.src = nil
	r.publishView()
	return errors.Join(errs...)
}

// notify is the source subscription: it wakes every running worker. It never
// blocks and does not allocate.
func (r *Registry) notify() {
	ws := r.fanout.Load()
	if ws == nil {
		return
	}
	for _, w := range *ws {
		w.kick()
	}
}

// addFanout and removeFanout are called with r.mu held. Once Detach has
// stopped intake, no worker joins the fan-out again.
func (r *Registry) addFanout(w *worker) {
	if r.stopping.Load() {
		return
	}
	var next []*worker
	if cur := r.fanout.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, w)
	r.fanout.Store(&next)
}

func (r *Registry) removeFanout(w *worker) {
	cur := r.fanout.Load()
	if cur == nil {
		return
	}
	next := make([]*worker, 0, len(*cur))
	for _, x := range *cur {
		if x != w {
			next = append(next, x)
		}
	}
	r.fanout.Store(&next)
}

// diagnose records d for s, logs it and passes it to the host's callback.
func (r *Registry) diagnose(s *slot, d adapter.Diagnostic) {
	d.Adapter = s.name
	d.Detail = adapter.Bound(d.Detail, adapter.MaxDetail)
	r.mu.Lock()
	s.recordDiagnostic(d, time.Now())
	r.mu.Unlock()
	r.log.Warn("adapter diagnostic", "adapter", d.Adapter, "kind", string(d.Kind), "detail", d.Detail)
	if f := r.opts.OnDiagnostic; f != nil {
		f(d)
	}
}
