package registry

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/panestate/panestate/internal/settingsengine"
	"github.com/panestate/panestate/session"
)

// Lifecycle is where an adapter is in its life within a registry, as
// [AdapterStatus] shows it; JSON shows the name ("open_failed"). It is not
// a pane state: that is adapter.State (idle, working, blocked).
type Lifecycle string

// Lifecycles.
const (
	// LifecycleNotAttached: reporting is not attached. Before Attach, an
	// adapter here is enabled and applies: it runs at Attach.
	LifecycleNotAttached Lifecycle = "not_attached"
	// LifecycleActive: the adapter runs and reports.
	LifecycleActive Lifecycle = "active"
	// LifecycleDisabled: the settings (or the adapter's default) turn it off.
	LifecycleDisabled Lifecycle = "disabled"
	// LifecycleInactive: the adapter does not apply to this process; Why
	// says which condition failed.
	LifecycleInactive Lifecycle = "inactive"
	// LifecycleOpenFailed: opening failed for another reason, usually a bad
	// setting; Why has the error. Before Attach, an enabled adapter that
	// applies here but whose settings its driver rejects
	// (adapter.Checker) is here too: Open would fail.
	LifecycleOpenFailed Lifecycle = "open_failed"
	// LifecyclePanicked: the adapter panicked and was stopped.
	LifecyclePanicked Lifecycle = "panicked"
	// LifecycleUnreleased: Detach could not release what the adapter holds
	// (Why says why); the next Detach tries again.
	LifecycleUnreleased Lifecycle = "unreleased"
	// LifecycleStaleOwner: the adapter runs, but a newer claim holds its
	// pane (another host in the same pane, or a newer registry of this
	// process; adapter.PaneOwner). It sends nothing, so it never clears the
	// newer one's state, and takes the pane back by itself once that claim
	// is released or its process has exited. Explain shows it; settings
	// changes treat it as active.
	LifecycleStaleOwner Lifecycle = "stale_owner"
)

// lifecycles lists every Lifecycle; the decision's test covers each.
var lifecycles = [...]Lifecycle{LifecycleNotAttached, LifecycleActive, LifecycleDisabled, LifecycleInactive,
	LifecycleOpenFailed, LifecyclePanicked, LifecycleUnreleased, LifecycleStaleOwner}

// words is the lifecycle for people: "open failed".
func (l Lifecycle) words() string { return strings.ReplaceAll(string(l), "_", " ") }

// attachment is where the registry itself is: detached, attaching,
// attached, applying a settings change, or detaching (where an adapter is,
// is its Lifecycle). Attaching, applying and detaching are transient: an
// operation runs, and opDone is closed when it ends.
type attachment uint8

const (
	attachmentDetached  attachment = iota // nothing runs (a failed release may be left for the next Detach)
	attachmentAttaching                   // Attach is opening adapters
	attachmentAttached                    // reporting
	attachmentApplying                    // attached, a settings change being carried out
	attachmentDetaching                   // Detach is stopping everything
)

// attached reports whether p counts as attached for Explain and Attach.
func (p attachment) attached() bool {
	return p == attachmentAttaching || p == attachmentAttached || p == attachmentApplying
}

// Time budgets. A budget a user can feel is bounded; every one is measured
// by a benchmark (docs/benchmarks.md).
const (
	// defaultReleaseTimeout is the release budget when
	// Options.ReleaseTimeout is zero.
	defaultReleaseTimeout = 1500 * time.Millisecond
	// closeShare: the last budget/closeShare of the release budget is kept
	// for Close; the release must end before it.
	closeShare = 6
	// closeMin is the least Close gets (an adapter left unreleased, or one
	// preempted before it reported).
	closeMin = 250 * time.Millisecond
	// cancelGrace is how long past the end of the budget Detach, or a
	// successor, waits for an adapter to return from a cancelled call
	// before it stops waiting.
	cancelGrace = 100 * time.Millisecond
	// throttleWindow is the least time between the starts of two
	// deliveries of a change to one adapter (docs/architecture.md says
	// why 50 ms). A change after a quiet window goes out at once.
	throttleWindow = 50 * time.Millisecond
)

// errUnsubscribeHung is part of Detach's error when the host's cancel
// function did not return within the release budget.
var errUnsubscribeHung = errors.New("registry: detach: the session.Source's cancel function (returned by Subscribe) did not return within the release budget; it is left to finish on its own")

// errDetached is returned by an Attach that a concurrent Detach preempted.
var errDetached = errors.New("registry: attach: Detach was called before Attach completed")

// isNilSource reports whether src is nil or a typed nil pointer (a nil
// *session.Store).
func isNilSource(src session.Source) bool {
	if src == nil {
		return true
	}
	v := reflect.ValueOf(src)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Interface, reflect.Slice, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// Attach starts reporting src to every enabled adapter that applies here, and
// watches the settings so that adapters can be turned on and off live. Each
// adapter reports the current state at once. ctx bounds opening the
// adapters; it is not kept.
//
// Attach on an attached registry does nothing and returns nil; a concurrent
// Attach waits for the first. When no adapter applies (outside every
// workspace), and no settings edit could make one apply, Attach starts no
// goroutine, timer or subprocess; an adapter that applies only when a
// layer sets "enabled": true (the terminal adapter in a terminal it does
// not know) keeps the settings watched. Settings
// files that cannot be read are logged and shown in Explain; they are not an
// error of Attach, nor is an adapter that fails to open (Explain shows it as
// open_failed, with the reason, ctx's end included). Attach returns an
// error when src is nil (or a nil *session.Store), when ctx ends before
// Attach could start (waiting for a concurrent Attach or Detach), and when
// a Detach preempts it. Attach after Detach attaches again, with fresh
// adapters.
func (r *Registry) Attach(ctx context.Context, src session.Source) error {
	r.mustBeMade()
	if isNilSource(src) {
		return errors.New("registry: Attach with a nil session.Source; pass the store the chat service feeds (session.NewStore())")
	}
	o, already, err := r.beginAttach(ctx, src)
	if err != nil || already {
		return err
	}
	gen, opCtx := o.gen, o.ctx
	// orphan is a watcher started for an attachment that a Detach
	// preempted. It is closed only after the operation ends: its callback
	// may be waiting for this Attach to end.
	var orphan *settingsengine.Watcher
	defer func() {
		r.endOp(o, attachmentAttaching)
		if orphan != nil {
			r.bg.Go(func() { orphan.Close() })
		}
	}()

	// Subscribe before any worker starts: a worker's first pull then sees
	// every change made before it, and every later change wakes it.
	unsub, err := r.subscribe(src)
	if err != nil {
		r.failAttach(gen)
		return err
	}
	if !r.holdSubscription(gen, unsub) {
		if err := r.unsubscribeGuarded(unsub); err != nil {
			r.log.Warn("unsubscribing", "error", err)
		}
		return errDetached
	}
	so := r.settingsOptions()
	// The first read is silent: when a watcher follows, it reads the files
	// again and reports their problems once; otherwise they are logged below.
	cur, loadErr := r.readSettings()
	r.apply(opCtx, gen, cur)
	var watching bool
	if !r.opts.StaticSettings && r.watchUseful(gen, cur) {
		w, err := settingsengine.Watch(so, func(s settingsengine.Settings) { r.onSettings(gen, s) })
		switch {
		case err != nil:
			r.log.Warn("settings will not reload live", "error", err)
		case !r.holdWatcher(gen, w):
			orphan = w
			return errDetached
		default:
			watching = true
			// An edit between the read and Watch is in w.Current().
			r.apply(opCtx, gen, w.Current())
		}
	}
	if !watching {
		if loadErr != nil {
			r.log.Warn("settings not fully loaded; using what could be read", "error", loadErr)
		}
		for _, w := range cur.Warnings() {
			r.log.Warn("settings value ignored", "warning", w.String())
		}
	}
	idle, ok := r.dropIdleSubscription(gen)
	if !ok {
		return errDetached
	}
	if idle != nil {
		if err := r.unsubscribeGuarded(idle); err != nil {
			return err
		}
	}
	return nil
}

// watchUseful reports whether a settings change could change what runs: some
// adapter is running, or one that would run by default and applies here is
// turned off, or one failed to open with settings that an edit could fix,
// or one is inactive only because no layer forces it on.
// Outside every workspace it is false, so nothing is watched.
func (r *Registry) watchUseful(gen uint64, cur settingsengine.Settings) bool {
	for _, s := range r.entries {
		life, ok := r.lifeOf(gen, s)
		if !ok {
			return false
		}
		switch life {
		case LifecycleActive, LifecycleOpenFailed:
			return true
		case LifecycleDisabled:
			if s.def && r.check(s, cur) == nil {
				return true
			}
		case LifecycleInactive:
			// An edit that sets "enabled": true may make it apply (the
			// terminal adapter in a terminal it does not know).
			if p := r.params(s, cur); !p.Forced {
				p.Forced = true
				if r.checkParams(s, p) == nil {
					return true
				}
			}
		}
	}
	return false
}

// Detach stops reporting and hands back what the adapters hold, within the
// release budget ([Options].ReleaseTimeout, 1.5 s by default), whatever ctx.
// In order, all at once for every adapter:
//
//   - no new state reaches any adapter, and every delivery in flight is
//     withdrawn (adapter.Withdrawn): a request not yet sent is dropped at
//     once; one that may have reached the workspace is waited for, for the
//     first half of the budget, so that the release never overtakes it;
//   - each adapter is released (the Herdr pane is handed back with a fresh
//     sequence number), by the budget minus one sixth, and closed, by the
//     end of the budget, each on its own goroutine, so that no adapter
//     waits for another;
//   - the source's cancel function (returned by Subscribe) is called on a
//     goroutine of the registry's own, beside the releases: one that does
//     not return within the budget is not waited for, and Detach's error
//     says so;
//   - the settings watcher is closed on a goroutine of the registry's own
//     that Detach does not wait for: closing it never delays the host.
//
// A delivery still in flight when half the budget has passed (a hung
// workspace) has its ctx cancelled and is abandoned: the error says so,
// because the workspace may still apply that request after the release.
// An adapter that does not return from a call by the end of the budget
// (plus 100 ms for a cancelled call to return) is not waited for: Detach
// returns an error naming it, and it is released when it returns, if the
// budget allows, or left [LifecycleUnreleased]. A Detach called again while
// such an adapter is still inside its call waits for it within its own
// budget and releases it. Detach itself returns within
// the budget plus those 100 ms.
//
// ctx bounds only the wait for a concurrent Detach: a ctx that is already
// done (a host's signal.NotifyContext context) or ends sooner still gets
// the whole budget, and a longer one does not lengthen it.
//
// A release that fails leaves its adapter open and Explain shows it as
// [LifecycleUnreleased]; the error says which, and the next Detach tries
// again (a new adapter of its kind, opened by the next Attach or a settings
// change, takes the pane over and closes it instead; without one it waits
// for the next Detach).
// Errors are joined. Detach during Attach or a settings change preempts
// them: an adapter being replaced by a successor that had not started is
// released like every other. Detach is idempotent, safe on a registry
// never attached, and safe to call concurrently with anything else; a
// concurrent Detach waits for the first, bounded by its ctx.
func (r *Registry) Detach(ctx context.Context) error {
	r.mustBeMade()
	start := time.Now()
	p, ok, err := r.beginDetach(ctx, start)
	if err != nil || !ok {
		return err
	}
	ws, stale, unsub, watcher := p.ws, p.stale, p.unsub, p.watcher
	for _, w := range stale {
		ws = append(ws, w.retryRelease(start))
	}
	var errs []error
	// The host's cancel function runs on the registry's own goroutine, so
	// that one that hangs costs Detach the budget, not for ever; the
	// goroutine ends when the host's function returns.
	var unsubDone chan error
	if unsub != nil {
		unsubDone = make(chan error, 1)
		r.bg.Go(func() { unsubDone <- r.unsubscribeGuarded(unsub) })
	}
	final := time.NewTimer(time.Until(start.Add(r.budget + cancelGrace)))
	defer final.Stop()
	expired := false
	for _, w := range ws {
		if !expired {
			select {
			case <-w.done:
			case <-final.C:
				expired = true
			}
		}
		select {
		case <-w.done:
			if err := w.result(); err != nil {
				errs = append(errs, fmt.Errorf("registry: detach %s: %w", w.s.name, err))
			}
			continue
		default:
		}
		if w.inFlight() {
			errs = append(errs, fmt.Errorf("registry: detach %s: the adapter did not return from its report in flight within the release budget (%v; its ctx was cancelled after %v): the workspace may still apply that report; the adapter is released when it returns if the budget allows, or left for the next Detach", w.s.name, r.budget, r.budget/2))
		} else {
			errs = append(errs, fmt.Errorf("registry: detach %s: release and close did not return within the release budget (%v)", w.s.name, r.budget))
		}
	}

	if watcher != nil {
		// Closing the watcher waits for the kernel to drop its watches
		// (about 13 ms of its time) and for a settings change in progress
		// (which this Detach has preempted): the registry's own goroutine
		// does it, once the releases are done, so that it neither delays
		// Detach nor competes with the releases for the processor.
		r.bg.Go(func() {
			if err := watcher.Close(); err != nil {
				r.log.Warn("closing the settings watcher", "error", err)
			}
		})
	}

	if unsubDone != nil {
		var err error
		if expired {
			select {
			case err = <-unsubDone:
			default:
				err = errUnsubscribeHung
			}
		} else {
			select {
			case err = <-unsubDone:
			case <-final.C:
				err = errUnsubscribeHung
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}

	r.endDetach(p)
	return errors.Join(errs...)
}
