package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/session"
)

// ErrInactive is wrapped by the error a [Driver] returns when its adapter does
// not apply to this process (not inside its workspace, an ineligible host, a
// conflicting reporter loaded). The rest of the error says why.
var ErrInactive = errors.New("adapter inactive")

// ErrClosed is returned by Report and Release after Close.
var ErrClosed = errors.New("adapter closed")

// Params is what a [Driver] receives to open its adapter.
type Params struct {
	// Name is the driver's key in registry.Options.Drivers (for the
	// built-in drivers, in registry.Builtin).
	Name string
	// App is the host application's name (e.g. "atomic"); adapters derive
	// identities from it (Herdr's source is "custom:<app>").
	App string
	// Settings is the adapter's own section of the merged settings, as JSON
	// (nil when there is none), without its "enabled" key: whether the
	// adapter runs at all is the registry's business.
	Settings json.RawMessage
	// Forced is true when a settings layer set this adapter's "enabled" to
	// the literal true, rather than the adapter running by default. An
	// adapter that can only guess whether it applies here (the terminal
	// adapter, from TERM_PROGRAM and the like) takes it as the person's word
	// that it does; an adapter whose applicability is a fact (inside a Herdr
	// pane or not) ignores it.
	Forced bool
	// Logger is the host's logger, already Named after the adapter. Never nil.
	Logger hclog.Logger
	// Env is the environment captured for this adapter.
	Env Env
	// Host says how the agent runs.
	Host session.Host
	// Terminal is the host's controlling terminal, when the host hands it
	// over (registry.Options.Terminal); nil otherwise. The host's TUI owns
	// the screen: an adapter writes to it only escape sequences that change
	// no cell, each in a single Write call, and only from Report, Release
	// and Close.
	Terminal io.Writer
	// Diagnose records a diagnostic. Never nil; safe for concurrent use;
	// never blocks for long. Call it every time: the registry counts every
	// call by kind and passes on only the first of each kind per Open (to
	// the log, the host's callback and Explain).
	Diagnose func(Diagnostic)
}

// Driver opens an adapter for this process: one per workspace, by name in
// the registry's drivers (registry.Builtin, registry.Options.Drivers).
type Driver interface {
	// Open returns an adapter ready to report, or an error. When the adapter
	// does not apply here, the error wraps ErrInactive and says why; an
	// inactive adapter must have started nothing (no goroutine, timer,
	// subprocess or file). ctx bounds opening only. Open may be called
	// concurrently and more than once per process (a settings change opens a
	// new adapter before the old one is closed).
	Open(ctx context.Context, p Params) (Adapter, error)
}

// DriverFunc adapts a function to [Driver]; it is enabled by default.
type DriverFunc func(ctx context.Context, p Params) (Adapter, error)

// Open calls f.
func (f DriverFunc) Open(ctx context.Context, p Params) (Adapter, error) { return f(ctx, p) }

// Adapter delivers pane state to one workspace.
type Adapter interface {
	// Report delivers r and returns when the workspace has it or the
	// attempt failed. The registry calls Report from one goroutine per
	// adapter, never concurrently, never with a report equal to the last
	// one delivered, except to refresh it (see [Refresher]), and at most
	// once per 50 ms window for changes (newer changes merge). An adapter
	// that replaces another (a settings change) gets its first call once
	// its predecessor has returned from its last call and closed, or once
	// the predecessor's release budget (plus 100 ms) has passed, whichever
	// comes first: a predecessor that ignores its cancelled ctx is not
	// waited for past that, and its late call may then overlap the
	// successor's (the built-in adapters order such calls on the pane
	// themselves). When reporting stops (Detach,
	// the adapter turned off or replaced) the report in flight is withdrawn
	// ([Withdrawn]): a request not yet sent is dropped (return an error
	// wrapping [ErrWithdrawn]), one that may have left the process is
	// waited for, and the release follows after Report returns. ctx bounds
	// the call and ends when half the registry's release budget has passed
	// since the stop (a hung workspace): return promptly then. An adapter
	// should also apply its own deadline. An error means "not delivered":
	// the registry tries the same state again, with capped backoff, for as
	// long as it is the newest. After Close, Report returns ErrClosed.
	Report(ctx context.Context, r Report) error
}

// Optional interfaces. The registry finds these by type assertion and falls
// back as each one says when an adapter does not implement it.

// Releaser is implemented by adapters that hold something in the workspace
// (Herdr: the pane's agent state) and can hand it back. The registry calls
// Release once when reporting stops for good (Detach, or the adapter being
// disabled), after the last Report returned and before Close, never
// concurrently with Report; when an adapter is replaced by a successor,
// only if a Detach comes before the successor runs. ctx bounds the call (it
// ends at five sixths of the registry's release budget, counted from the
// stop): when it ends, Release returns promptly with its error, and the
// adapter is left open for the next Detach to try again. Fallback: nothing
// is released.
type Releaser interface {
	Release(ctx context.Context) error
}

// Closer is implemented by adapters that own resources. The registry calls
// Close last, once, with a ctx that ends with the release budget; Close
// must be idempotent, bounded by ctx, and must leave
// no goroutine, timer or subprocess behind. After Close, Report and Release
// return ErrClosed. Fallback: nothing to close.
type Closer interface {
	Close(ctx context.Context) error
}

// SessionAware is implemented by adapters that forward the session identity.
// The registry calls SetSession from the adapter's delivery goroutine, before
// the next Report, whenever the identity in the source's snapshot changes.
// Fallback: the identity is not forwarded.
type SessionAware interface {
	SetSession(id session.Identity)
}

// Refresher is implemented by adapters whose workspace can forget or drop a
// state it was given: Herdr forgets every custom reporter when its server
// restarts; some terminals clear a progress indicator that is not refreshed.
// After each delivery of r, and while r stays the newest report, the
// registry calls Report again with the same r once RefreshInterval(r) has
// passed with no delivery; this is the one case where Report receives a
// report equal to the last one delivered. RefreshInterval is called from the
// delivery goroutine, must be cheap, and returns 0 (or less) for "never
// refresh r", in which case the registry keeps no timer. Fallback: no
// refresh.
type Refresher interface {
	RefreshInterval(r Report) time.Duration
}

// Detailer is implemented by adapters with state worth showing in the
// registry's report (registry.Explain): a pane id, counters, the route
// it takes. Details returns the adapter's own lines as short plain-text keys
// and values. It must be cheap and safe to call concurrently with Report.
// Fallback: nothing adapter-specific is shown.
type Detailer interface {
	Details() map[string]string
}

// PaneOwner is implemented by adapters whose pane may be held by another
// claim: a newer adapter of the same process, or another process in the
// same pane (see package internal/owner). OwnsPane reports false while such
// a claim holds the pane; the adapter then sends nothing, has emitted one
// stale_owner diagnostic, and takes the pane back by itself once the other
// claim released it or its process exited. It is there so that the
// registry can show such an adapter as stale_owner rather than active.
// OwnsPane must be safe for concurrent use. Fallback: true.
type PaneOwner interface {
	OwnsPane() bool
}

// SettingsOwner is implemented by drivers that say how their adapter's
// settings section reads. Settings returns whether the adapter runs when no
// settings file sets "enabled", and the keys the adapter owns besides
// "enabled"; the settings layer warns about any other key in the section. It
// must have no side effect. Fallback: enabled, and only "enabled" is known.
type SettingsOwner interface {
	Settings() (enabledByDefault bool, keys []string)
}

// EnvScrubber is implemented by drivers whose workspace puts variables in the
// environment that child processes must not inherit: a tool subprocess that
// sees a pane's variables could claim or release the parent's pane.
// ScrubEnv returns env without them. Fallback: env unchanged.
type EnvScrubber interface {
	ScrubEnv(env Env) Env
}

// Checker is implemented by drivers that can tell, without opening anything,
// what Open would say. Check returns nil when Open would succeed; an error
// wrapping ErrInactive that says why when the adapter does not apply to this
// process; or, when it applies, the error Open would return for its settings
// section (p.Settings), naming the key. Values Open would clamp are valid.
// It must start nothing, emit no diagnostic and have no side effect, and may
// be called concurrently, at any time. The registry uses it for adapters it
// has not opened (disabled in the settings, or before Attach in Explain), so
// that a bad setting is shown before it makes Open fail. Fallback: the
// adapter is assumed to apply, with valid settings.
type Checker interface {
	Check(p Params) error
}

// Previewer is implemented by drivers whose adapter's setup is worth
// showing before it is opened: the settings it would use and the route it
// would take (Herdr: its transport setting, and which transport it takes
// for which answer of its server). Preview returns those lines for p, as
// Open would read p, as short plain-text keys and values. The registry
// shows them as the adapter's details in Explain for an adapter that
// applies here, has valid settings and is not open (before Attach, or
// disabled), so that a tool such as a doctor reads the adapter's own
// choices instead of reading its settings again. It is called only after
// Check returned nil, and the rules of [Checker] hold: it starts nothing,
// emits no diagnostic, has no side effect and may be called concurrently.
// Fallback: no details until the adapter is open.
type Previewer interface {
	Preview(p Params) map[string]string
}
