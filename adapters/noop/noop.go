package noop

import (
	"context"
	"sync/atomic"

	"github.com/panestate/panestate/adapter"
)

// Driver opens no-op adapters. Its zero value is ready to use and safe for
// concurrent use; it has no fields because the no-op adapter has nothing to
// configure.
//
// A real driver is usually just as small: its settings arrive in
// [adapter.Params], not in the struct, so that the registry can open it again
// with new settings after a change.
type Driver struct{}

// Compile-time guards: the build breaks if a method's signature drifts from
// the interface it is meant to implement. Keep one line per interface.
var (
	_ adapter.Driver        = Driver{}
	_ adapter.SettingsOwner = Driver{}
)

// Open returns a new [Adapter]. It never fails.
//
// This is where a real driver decides whether it applies to this process.
// It reads the environment from p.Env (captured once, never os.Getenv, so
// tests can supply their own), checks p.Host.Interactive and p.Host.Root if it claims
// something only an interactive root session may claim, and decodes
// p.Settings. When it does not apply, it returns an error wrapping
// [adapter.ErrInactive] that says why, having started nothing: no goroutine,
// timer, subprocess or file. ctx bounds opening only; it must not be kept.
// The no-op adapter applies everywhere, reads none of p, and ignores ctx
// because opening it cannot block.
func (Driver) Open(context.Context, adapter.Params) (adapter.Adapter, error) {
	return new(Adapter), nil
}

// Settings returns false and no keys: the no-op adapter runs only when the
// settings say "noop.enabled": true, and its section has no other key. A
// workspace adapter that should run whenever its workspace is present (as
// Herdr's does) returns true here, with the keys of its section.
func (Driver) Settings() (enabledByDefault bool, keys []string) { return false, nil }

// Adapter is a no-op adapter: Report accepts every report and shows it
// nowhere. Create one with [Driver.Open]; the zero value is also ready to
// use. Every method is safe for concurrent use; after Close, Report and
// Release return [adapter.ErrClosed].
type Adapter struct {
	// closed is the only state. An atomic keeps Report lock-free; an adapter
	// with more state would take a mutex here.
	closed atomic.Bool
}

// Guards for the adapter: the required interface and each optional one.
var (
	_ adapter.Adapter  = (*Adapter)(nil)
	_ adapter.Releaser = (*Adapter)(nil)
	_ adapter.Closer   = (*Adapter)(nil)
)

// Report accepts r and returns nil, or [adapter.ErrClosed] after Close. It
// does not allocate.
//
// The registry calls Report from one goroutine per adapter, never
// concurrently, never with a report equal to the last one delivered, and
// with a coalescing slot and a 50 ms throttle in front: so a real adapter
// delivers synchronously, keeps no queue of its own, and returns once the
// workspace has the report or the attempt failed. When reporting stops the
// report is withdrawn ([adapter.Withdrawn]): a real adapter that has not
// sent its request yet returns an error wrapping [adapter.ErrWithdrawn] at
// once, and one that has waits for the answer. ctx bounds the call (it
// ends when half the registry's release budget has passed since the stop);
// a real adapter also applies a deadline of its own and returns promptly
// (nil, or an error wrapping ctx.Err()) when ctx is already done. A returned error means "not
// delivered", and the registry offers the same state again later. Only
// r.State and r.Message may reach the workspace; r.Reason is internal.
func (a *Adapter) Report(_ context.Context, _ adapter.Report) error {
	if a.closed.Load() {
		// The sentinel itself, not a wrapped copy: wrapping would allocate,
		// and callers test with errors.Is either way.
		return adapter.ErrClosed
	}
	return nil
}

// Release returns nil, or [adapter.ErrClosed] after Close.
//
// The registry calls Release once when reporting stops for good, after the
// last Report has returned and before Close, within its release budget, and
// not when the adapter is replaced by a successor (unless a Detach comes
// before the successor runs). A real adapter hands back whatever it holds in
// the workspace (Herdr: the pane's agent state), even if it never reported.
// The no-op adapter holds nothing.
func (a *Adapter) Release(context.Context) error {
	if a.closed.Load() {
		return adapter.ErrClosed
	}
	return nil
}

// Close marks the adapter closed and returns nil. It is idempotent.
//
// The registry calls Close last, once; but Close must be idempotent anyway,
// bounded by ctx, and must leave no goroutine, timer or subprocess behind
// when it returns. After it, Report and Release return [adapter.ErrClosed].
func (a *Adapter) Close(context.Context) error {
	a.closed.Store(true)
	return nil
}
