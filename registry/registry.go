package registry

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/builtin"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/internal/settingsengine"
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
	// concurrently, and must not block. A panic in it is recovered.
	OnDiagnostic func(adapter.Diagnostic)
	// Settings locates the settings files and decides whether the project
	// is trusted. The registry names the files after App, gives each
	// adapter its own section and logs through Logger.
	Settings settings.Options
	// StaticSettings reads the settings once, at Attach, and never watches
	// the files.
	StaticSettings bool
	// Drivers are this registry's drivers by name: exactly these run, each
	// turned on or off by the settings files. Nil means the built-in ones
	// ([Builtin]). To add an adapter of one's own, pass Builtin() with it
	// added; a test passes only its recorder, or one built-in driver. A
	// name is also the adapter's settings section ("<name>.enabled"), so it
	// must match ^[a-z][a-z0-9_-]*$; a bad name or a nil driver is an error
	// from New.
	Drivers map[string]adapter.Driver
	// ReleaseTimeout is the release budget: the longest [Registry.Detach],
	// or turning an adapter off, takes to hand back what each adapter
	// holds, covering the wait for a report in flight (the first half),
	// the release, and Close (the last sixth), whatever each adapter's own
	// timeout and whatever Detach's ctx. Zero means 1.5 s; a negative value
	// is an error from New. With the default, a healthy but slow
	// workspace still receives the release: at 1 s per call when no report
	// is in flight, at 500 ms per call when one is (it is answered first);
	// a hung one costs the budget. Raise it for slower workspaces.
	ReleaseTimeout time.Duration
	// Terminal is the host's controlling terminal, for adapters that signal
	// through it (OSC progress sequences on the tab). Nil keeps them
	// inactive. The host's TUI owns the screen; adapters write only
	// sequences that change no cell, each in one Write.
	Terminal io.Writer

	// tuneSettings, set by this package's tests, changes the settings
	// engine's timing (debounce, grace, retry, poll), which a host does not
	// set.
	tuneSettings func(*settingsengine.Options)
}

// validApp reports whether app is 1 to 64 ASCII letters, digits, ".", "_"
// and "-", starting with a letter or digit.
func validApp(app string) bool { return builtin.ValidName(app, 64, "._-") }

// Registry attaches pane-state reporting to a session source. Create one with
// [New]: the methods of a zero Registry panic. All methods are safe for
// concurrent use.
type Registry struct {
	made   bool // set by New
	opts   Options
	log    hclog.Logger
	budget time.Duration // the release budget (Options.ReleaseTimeout)
	window time.Duration // the throttle window (throttleWindow; tests change it)
	// bg owns the goroutines that close settings watchers after Detach,
	// which Detach does not wait for. They end once the watcher is closed.
	bg      sync.WaitGroup
	env     adapter.Env
	entries []*entry // one per driver, sorted by name; fixed by New

	// mu guards every field below and the entries' guarded fields. It is never
	// held while adapter, driver, settings or host code runs, so Explain
	// never waits for a slow adapter or a settings change.
	mu sync.Mutex
	// attachment is the registry's own (see its type). gen counts Attach and Detach
	// calls: an attach or settings change acts only while gen is still the
	// one it started with, so a Detach preempts it by incrementing gen.
	attachment attachment
	gen        uint64
	attachGen  uint64        // gen of the latest Attach: its workers' generation
	opDone     chan struct{} // closed when the operation of a transient attachment ends
	opCancel   func()        // cancels the attach or settings change in progress
	// preempt is closed by the Detach that ends the current attachment, so
	// that a settings change waiting for its Attach stops waiting.
	preempt chan struct{}

	src         session.Source
	unsubscribe func()
	watcher     *settingsengine.Watcher
	cur         settingsengine.Settings
	// live holds every worker whose goroutine has not finished with its
	// adapter, running or being stopped. Detach stops them all.
	live map[*worker]struct{}
	// unreleased holds the adapters a Detach could not release. They stay
	// open so that the next Detach can try again; a new adapter of the
	// same entry closes its predecessor here as it takes the pane over.
	unreleased []*worker

	// reader reads the settings for Attach and for Explain before Attach,
	// silently; nil when the settings options are invalid (readerErr says
	// why). Fixed by New. One Reader, rather than a settingsengine.Load per
	// call, keeps a trust function that hangs from being waited for, and
	// left with one more goroutine, on every call.
	reader    *settingsengine.Reader
	readerErr error

	// fanout lists the running workers. notify reads it without a lock so
	// that publishing never waits; it is replaced under mu.
	fanout atomic.Pointer[[]*worker]
}

// New returns a registry for Options.Drivers (by default the built-in
// ones). It starts nothing.
func New(opts Options) (*Registry, error) {
	if !validApp(opts.App) {
		return nil, fmt.Errorf("registry: Options.App %q must be 1-64 characters of letters, digits, '.', '_' or '-'", opts.App)
	}
	if opts.ReleaseTimeout < 0 {
		return nil, fmt.Errorf("registry: Options.ReleaseTimeout is negative (%v)", opts.ReleaseTimeout)
	}
	table := opts.Drivers
	if table == nil {
		table = Builtin()
	}
	for _, name := range slices.Sorted(maps.Keys(table)) {
		if !validName(name) {
			return nil, fmt.Errorf("registry: Options.Drivers: adapter name %q must match %s", name, namePattern)
		}
		if table[name] == nil {
			return nil, fmt.Errorf("registry: Options.Drivers: driver %q is nil", name)
		}
	}
	var log hclog.Logger = hclog.NewNullLogger()
	if opts.Logger != nil {
		// A logger whose writer panics never crashes the host: every
		// call through it, the adapters' included, is guarded.
		log = guardLogger(opts.Logger)
	}
	budget := opts.ReleaseTimeout
	if budget == 0 {
		budget = defaultReleaseTimeout
	}
	r := &Registry{made: true, opts: opts, log: log.Named("panestate"), env: adapter.Env(opts.Env),
		budget: budget, window: throttleWindow, live: make(map[*worker]struct{})}
	if opts.Env == nil {
		r.env = adapter.Env(os.Environ())
	}
	for _, name := range slices.Sorted(maps.Keys(table)) {
		d := table[name]
		s := &entry{name: name, driver: d, life: LifecycleNotAttached}
		// What a driver says of itself is asked once, guarded: a driver
		// that panics here is treated as on by default, owning only
		// "enabled".
		s.def, s.keys = true, []string{"enabled"}
		r.guard(s, "Settings", func() {
			def, keys := optional.Settings(d)
			s.def, s.keys = def, keys
		})
		r.entries = append(r.entries, s)
	}
	slices.SortFunc(r.entries, func(a, b *entry) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	quiet := r.settingsOptions()
	quiet.Logger = hclog.NewNullLogger()
	// Invalid settings options (ProjectPath without ProjectRoot) are an
	// error of New. A home directory that cannot be found
	// is not a mistake of the host's: Attach logs it and Explain shows it,
	// and the adapters run with their defaults, as with unreadable files.
	probe := quiet
	if probe.Home == "" && probe.GlobalPath == "" {
		probe.Home = os.TempDir() // only to check the rest of the options
	}
	if _, err := settingsengine.NewReader(probe); err != nil {
		return nil, fmt.Errorf("registry: Options.Settings: %w", err)
	}
	r.reader, r.readerErr = settingsengine.NewReader(quiet)
	return r, nil
}

// readSettings reads the settings once, silently. It is safe for concurrent
// use; reads run one at a time.
func (r *Registry) readSettings() (settingsengine.Settings, error) {
	if r.readerErr != nil {
		return settingsengine.Settings{}, r.readerErr
	}
	return r.reader.Read()
}

// mustBeMade panics on a Registry not made by New: a zero Registry has no
// drivers and no options, and would otherwise fail in obscure ways.
func (r *Registry) mustBeMade() {
	if r == nil || !r.made {
		panic("registry: use of a Registry not created by registry.New; call registry.New(registry.Options{App: ...})")
	}
}

// entry is one driver's place in a registry. The fields after the first
// group are guarded by the registry's mu, except the atomic counters.
type entry struct {
	name   string
	driver adapter.Driver
	def    bool     // enabled by default (asked once, at New)
	keys   []string // the settings keys it owns, "enabled" first (asked once, at New)

	life        Lifecycle
	why         string // why it is not active
	settingsErr string // why the last settings change could not be applied
	enabled     bool
	from        settings.Layer
	seen        view    // the settings last acted on
	w           *worker // the running worker, nil when none

	last     adapter.Report // last delivered report
	lastAt   time.Time
	haveLast bool
	diags    map[adapter.Kind]*DiagnosticRecord // one per kind: the last passed on, and the count

	delivered atomic.Uint64 // reports delivered
	failed    atomic.Uint64 // deliveries that failed
	unchanged atomic.Uint64 // reports dropped because equal to the last delivered
	unknown   atomic.Uint64 // snapshots that gave no new report
	// Not in Explain; this package's tests read them.
	retries   atomic.Uint64 // retries after a failure
	refreshes atomic.Uint64 // re-deliveries of an unchanged report (adapter.Refresher)
}

// recordDiagnostic counts d and, when it is the first of its kind in its
// claim, keeps it for Explain as the last of its kind.
func (s *entry) recordDiagnostic(d adapter.Diagnostic, at time.Time, first bool) {
	if s.diags == nil {
		s.diags = make(map[adapter.Kind]*DiagnosticRecord)
	}
	rec := s.diags[d.Kind]
	if rec == nil {
		rec = &DiagnosticRecord{Diagnostic: d, At: at}
		s.diags[d.Kind] = rec
	}
	rec.Count++
	if first {
		rec.Diagnostic, rec.At = d, at
	}
}

// guard runs f, a call into adapter or driver code, and turns a panic into an
// adapter_panic diagnostic. It reports whether f panicked.
func (r *Registry) guard(s *entry, what string, f func()) (panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			panicked = true
			r.diagnose(s, nil, adapter.NewDiagnostic(s.name, adapter.KindAdapterPanic, "%s: %v", what, p))
		}
	}()
	f()
	return false
}

// check asks s's driver whether it applies here, guarded.
func (r *Registry) check(s *entry, cur settingsengine.Settings) error {
	return r.checkParams(s, r.params(s, cur))
}

// checkParams asks s's driver whether it applies with p, guarded: nil when
// it does, even when its settings would make Open fail (validate says so),
// or an error wrapping ErrInactive, or the error of a Check that panicked.
func (r *Registry) checkParams(s *entry, p adapter.Params) error {
	err := r.guardedCheck(s, p)
	if err != nil && !errors.Is(err, adapter.ErrInactive) && !errors.Is(err, errCheckPanicked) {
		return nil // it applies; the error is its settings'
	}
	return err
}

// validate returns the error s's settings section would make Open fail
// with, guarded; nil when the section is valid or the adapter does not
// apply here.
func (r *Registry) validate(s *entry, cur settingsengine.Settings) error {
	err := r.guardedCheck(s, r.params(s, cur))
	if errors.Is(err, adapter.ErrInactive) {
		return nil
	}
	return err
}

// errCheckPanicked is wrapped by the error of a driver's Check that
// panicked.
var errCheckPanicked = errors.New("panicked in Check")

// guardedCheck calls s's driver's Check with p, guarded.
func (r *Registry) guardedCheck(s *entry, p adapter.Params) (err error) {
	if r.guard(s, "Check", func() { err = optional.Check(s.driver, p) }) {
		return fmt.Errorf("registry: driver %s %w", s.name, errCheckPanicked)
	}
	return err
}

func (r *Registry) settingsOptions() settingsengine.Options {
	so := settingsengine.FromHost(r.opts.App, r.opts.Settings)
	// The environment the host gave the registry is the one that counts:
	// with a custom one, the home directory comes from it too.
	if so.Home == "" && r.opts.Env != nil {
		if home := r.env.Get("HOME"); home != "" {
			so.Home = home
		} else if home := r.env.Get("USERPROFILE"); home != "" {
			so.Home = home
		}
	}
	if r.opts.tuneSettings != nil {
		r.opts.tuneSettings(&so)
	}
	so.Logger = r.log.Named("settings")
	so.Sections = make([]settingsengine.Section, 0, len(r.entries))
	for _, s := range r.entries {
		so.Sections = append(so.Sections, settingsengine.Section{Name: s.name, Keys: s.keys[1:]})
	}
	return so
}

func (r *Registry) params(s *entry, cur settingsengine.Settings) adapter.Params {
	claim := new(claimKinds) // one per Open: the adapter's claim
	return adapter.Params{
		Name:     s.name,
		App:      r.opts.App,
		Settings: cur.Section(s.name),
		Forced:   viewOf(cur, s).forced,
		Logger:   r.log.Named(s.name),
		Env:      r.env,
		Host:     r.opts.Host,
		Terminal: r.opts.Terminal,
		Diagnose: func(d adapter.Diagnostic) { r.diagnose(s, claim, d) },
	}
}

// claimKinds is the set of diagnostic kinds one adapter (one Open: its
// claim) has already emitted. The registry passes each kind on once per
// claim, and counts every one.
type claimKinds struct {
	mu   sync.Mutex
	seen map[adapter.Kind]bool
}

// first reports whether k is new for this claim, and marks it seen.
func (c *claimKinds) first(k adapter.Kind) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[k] {
		return false
	}
	if c.seen == nil {
		c.seen = make(map[adapter.Kind]bool)
	}
	c.seen[k] = true
	return true
}

// diagnose counts d for s and, the first time its kind is seen in this
// claim (c; nil for the registry's own diagnostics, which are always new),
// records it for Explain, logs it and passes it to the host's callback.
func (r *Registry) diagnose(s *entry, c *claimKinds, d adapter.Diagnostic) {
	d.Adapter = s.name
	d.Detail = adapter.Bound(d.Detail, adapter.MaxDetail)
	first := c == nil || c.first(d.Kind)
	r.mu.Lock()
	s.recordDiagnostic(d, time.Now(), first)
	r.mu.Unlock()
	if !first {
		return
	}
	r.log.Warn("adapter diagnostic", "adapter", d.Adapter, "kind", string(d.Kind), "detail", d.Detail)
	if f := r.opts.OnDiagnostic; f != nil {
		defer func() {
			if p := recover(); p != nil {
				r.log.Error("Options.OnDiagnostic panicked", "panic", fmt.Sprint(p))
			}
		}()
		f(d)
	}
}

// view is what an adapter is opened with from the settings: its section and
// whether a layer forced it on. A change to either is a change of its
// settings, acted on as [decide] says.
type view struct {
	section string // the section's JSON
	forced  bool   // a layer set "enabled": true
}

func viewOf(cur settingsengine.Settings, s *entry) view {
	enabled, from := cur.Enabled(s.name, s.def)
	return view{section: string(cur.Section(s.name)), forced: enabled && from != settings.LayerDefault}
}
