package registry

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/settingsengine"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// This file holds every transition of the registry's control state (attachment,
// generation, the operation in progress, the live and unreleased workers,
// each entry's worker) and nothing else. Each is one function that takes
// r.mu, changes the state, and returns what its caller must carry out
// without the lock (stop, release, close, wait); the rest of the package
// changes that state only through them. control_test.go drives them
// directly.

// op is an operation in progress on the attachment of generation gen: an
// Attach, or a settings change. ctx ends when a Detach preempts it.
type op struct {
	gen    uint64
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed by endOp
}

// beginAttach starts an Attach of src: it waits (while ctx lasts) for an
// Attach or Detach in progress, then moves the registry from detached to
// attaching in a new generation, and returns the operation. The adapters an
// earlier Detach left unreleased stay in r.unreleased: start closes each
// when a new adapter of its entry takes the pane over, and the next Detach
// releases those that none took over. already is true when the registry is
// attached: there is nothing to do.
func (r *Registry) beginAttach(ctx context.Context, src session.Source) (o op, already bool, err error) {
	r.mu.Lock()
	for r.attachment == attachmentAttaching || r.attachment == attachmentDetaching {
		if err := r.waitOpLocked(ctx); err != nil {
			return op{}, false, fmt.Errorf("registry: attach: %w", err)
		}
	}
	defer r.mu.Unlock()
	if r.attachment.attached() {
		return op{}, true, nil
	}
	if err := ctx.Err(); err != nil {
		return op{}, false, fmt.Errorf("registry: attach: %w", err)
	}
	r.gen++
	r.attachGen = r.gen
	r.attachment = attachmentAttaching
	r.preempt = make(chan struct{})
	r.src = src
	for _, s := range r.entries {
		s.life, s.why, s.seen, s.settingsErr, s.w = LifecycleNotAttached, "", view{}, "", nil
	}
	return r.newOpLocked(ctx), false, nil
}

// newOpLocked makes the operation of the current generation; r.mu is held.
func (r *Registry) newOpLocked(parent context.Context) op {
	ctx, cancel := context.WithCancel(parent)
	o := op{gen: r.gen, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	r.opDone, r.opCancel = o.done, cancel
	return o
}

// endOp ends o, which began in attachment from (attaching or applying): the
// registry is attached again, unless a Detach preempted o or an earlier
// failure ended the attachment.
func (r *Registry) endOp(o op, from attachment) {
	r.mu.Lock()
	if r.gen == o.gen && r.attachment == from {
		r.attachment, r.opCancel = attachmentAttached, nil
	}
	close(o.done)
	r.mu.Unlock()
	o.cancel()
}

// failAttach ends the attachment of generation gen before anything ran
// (its Subscribe failed): the registry is detached again.
func (r *Registry) failAttach(gen uint64) {
	r.ifCurrent(gen, func() { r.attachment, r.src, r.opCancel = attachmentDetached, nil, nil })
}

// beginApply starts a settings change for the attachment of generation
// gen: it waits for that attachment's Attach to end (a Detach that
// preempts it ends the wait at once, even while the Attach is stuck in a
// driver), then moves the registry from attached to applying. ok is false
// when the attachment has ended or is not attached.
func (r *Registry) beginApply(gen uint64) (o op, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.gen == gen && r.attachment == attachmentAttaching {
		done, preempt := r.opDone, r.preempt
		r.mu.Unlock()
		select {
		case <-done:
		case <-preempt:
		}
		r.mu.Lock()
	}
	if r.gen != gen || r.attachment != attachmentAttached {
		return op{}, false
	}
	r.attachment = attachmentApplying
	return r.newOpLocked(context.Background()), true
}

// detachPlan is what a Detach carries out once beginDetach has changed the
// state: every worker (already stopped, with a release), the adapters left
// unreleased to try again, the subscription to cancel and the watcher to
// close.
type detachPlan struct {
	gen     uint64
	done    chan struct{}
	ws      []*worker
	stale   []*worker
	unsub   func()
	watcher *settingsengine.Watcher
}

// beginDetach starts a Detach at start: it waits (while ctx lasts) for a
// Detach in progress, preempts an Attach or settings change in progress,
// moves the registry to detaching in a new generation, and stops every
// live worker with a release, within the budget from start; a worker being
// replaced by a successor that is not running yet is released too, and so
// is one still busy past an earlier Detach's budget. ok is false when there
// is nothing to detach.
func (r *Registry) beginDetach(ctx context.Context, start time.Time) (p detachPlan, ok bool, err error) {
	r.mu.Lock()
	for r.attachment == attachmentDetaching {
		if err := r.waitOpLocked(ctx); err != nil {
			return detachPlan{}, false, fmt.Errorf("registry: detach: %w while another Detach was in progress", err)
		}
	}
	defer r.mu.Unlock()
	if r.attachment == attachmentDetached && len(r.unreleased) == 0 && len(r.live) == 0 {
		// Nothing left: no adapter unreleased, and none still busy past
		// the budget of an earlier Detach.
		return detachPlan{}, false, nil
	}
	if r.opCancel != nil {
		r.opCancel() // an attach or settings change in progress gives up
		r.opCancel = nil
	}
	if r.preempt != nil {
		close(r.preempt) // a settings change waiting for Attach gives up
		r.preempt = nil
	}
	r.gen++
	r.attachment = attachmentDetaching
	p = detachPlan{gen: r.gen, done: make(chan struct{}), ws: slices.Collect(maps.Keys(r.live)),
		stale: r.unreleased, unsub: r.unsubscribe, watcher: r.watcher}
	r.opDone = p.done
	r.fanout.Store(nil)
	r.unsubscribe, r.watcher, r.unreleased = nil, nil, nil
	for _, s := range r.entries {
		s.w = nil
		s.life, s.why = LifecycleNotAttached, ""
	}
	for _, w := range p.ws {
		w.stop(fateRelease, start)
	}
	return p, true, nil
}

// endDetach ends the Detach of p: the registry is detached.
func (r *Registry) endDetach(p detachPlan) {
	r.mu.Lock()
	if r.gen == p.gen {
		r.attachment = attachmentDetached
		r.src = nil
	}
	close(p.done)
	r.mu.Unlock()
}

// ifCurrent runs f under the lock if gen is still the current generation, and
// reports whether it did. The transitions below use it to hand over what an
// operation built; when it returns false, a Detach has preempted the
// operation, which must then undo what it built itself. Only this file
// calls it: every change of the control state has a name.
func (r *Registry) ifCurrent(gen uint64, f func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gen != gen {
		return false
	}
	f()
	return true
}

// useSettings records cur as the settings the attachment of generation gen
// acts on. It reports false when a Detach preempted the operation.
func (r *Registry) useSettings(gen uint64, cur settingsengine.Settings) bool {
	return r.ifCurrent(gen, func() { r.cur = cur })
}

// entryFacts records what the settings say of s ("enabled", and the layer
// that decided it) and returns the facts decide needs, given seen, the
// settings the change brings to s. ok is false when a Detach preempted the
// operation.
func (r *Registry) entryFacts(gen uint64, s *entry, enabled bool, from settings.Layer, seen view) (f facts, ok bool) {
	ok = r.ifCurrent(gen, func() {
		s.enabled, s.from = enabled, from
		f = facts{life: s.life, enabled: enabled, changed: s.seen != seen}
	})
	return f, ok
}

// settle sets s, which runs nothing, to life (disabled, inactive, or open
// failed), saying why, after acting on the settings seen.
func (r *Registry) settle(gen uint64, s *entry, life Lifecycle, why string, seen view) {
	r.ifCurrent(gen, func() { s.life, s.why, s.seen = life, why, seen })
}

// rejectSettings records that the settings seen could not be applied to s,
// which keeps running with its old ones: they are not tried again until
// they change.
func (r *Registry) rejectSettings(gen uint64, s *entry, why string, seen view) {
	r.ifCurrent(gen, func() { s.settingsErr, s.seen = why, seen })
}

// markSeen records that s has acted on the settings seen.
func (r *Registry) markSeen(gen uint64, s *entry, seen view) {
	r.ifCurrent(gen, func() { s.seen = seen })
}

// lifeOf returns s's lifecycle; ok is false when a Detach preempted the
// operation of generation gen.
func (r *Registry) lifeOf(gen uint64, s *entry) (life Lifecycle, ok bool) {
	ok = r.ifCurrent(gen, func() { life = s.life })
	return life, ok
}

// holdSubscription hands the source's cancel function to the attachment
// of generation gen, for Detach to call. It reports false when a Detach
// preempted the Attach, which must then call unsub itself.
func (r *Registry) holdSubscription(gen uint64, unsub func()) bool {
	return r.ifCurrent(gen, func() { r.unsubscribe = unsub })
}

// holdWatcher hands the settings watcher to the attachment of generation
// gen, for Detach to close. It reports false when a Detach preempted the
// Attach, which must then close w itself.
func (r *Registry) holdWatcher(gen uint64, w *settingsengine.Watcher) bool {
	return r.ifCurrent(gen, func() { r.watcher = w })
}

// dropIdleSubscription ends an Attach that runs nothing and watches
// nothing: it takes the subscription back for the caller to cancel (idle
// is nil when something runs). ok is false when a Detach preempted the
// Attach.
func (r *Registry) dropIdleSubscription(gen uint64) (idle func(), ok bool) {
	ok = r.ifCurrent(gen, func() {
		if len(r.live) == 0 && r.watcher == nil {
			idle, r.unsubscribe = r.unsubscribe, nil
		}
	})
	return idle, ok
}

// addLive counts w among the workers a Detach waits for (a retried
// release).
func (r *Registry) addLive(w *worker) {
	r.mu.Lock()
	r.live[w] = struct{}{}
	r.mu.Unlock()
}

// start hands a to a new worker for s and reports the current state at
// once. pred, when not nil, is the worker a replaces: it is closed without a
// release, and the new worker makes no call before pred is done. An adapter
// of s that a Detach left unreleased is closed first, without a release: a
// takes the pane over. If a Detach preempted the operation, a is closed
// instead (it never reported, so there is nothing to release) and start
// returns false.
func (r *Registry) start(gen uint64, s *entry, a adapter.Adapter, seen view, pred *worker) bool {
	var w *worker
	var stale []*worker
	if !r.ifCurrent(gen, func() {
		// Taken in the same step as the new worker starts: a Detach
		// either finds the old adapters still unreleased, or finds the
		// new worker, which releases the pane.
		stale = r.takeUnreleasedLocked(s)
		w = newWorker(r, s, a, r.src, r.attachGen, pred)
		s.w, s.life, s.why, s.seen, s.settingsErr = w, LifecycleActive, "", seen, ""
		r.live[w] = struct{}{}
		r.addFanout(w)
		if pred != nil {
			pred.stop(fateClose, time.Now()) // the successor holds the pane now
		}
	}) {
		closePreempted(a)
		return false
	}
	for _, old := range stale {
		old.closeOnly() // before the new worker's first call
	}
	go w.run()
	w.kick()
	return true
}

// takeUnreleasedLocked removes from r.unreleased the adapters of s that a
// Detach left unreleased, and returns them; r.mu is held.
func (r *Registry) takeUnreleasedLocked(s *entry) (ws []*worker) {
	r.unreleased = slices.DeleteFunc(r.unreleased, func(w *worker) bool {
		if w.s == s {
			ws = append(ws, w)
			return true
		}
		return false
	})
	return ws
}

// take removes s's running worker from s and from the fan-out and returns
// it, leaving s in life (nil when s runs nothing, or when a Detach
// preempted the operation). The entry changes first, so Explain never shows
// an adapter that is being stopped as active; the worker stays in r.live
// until it has finished, so that a Detach finds it.
func (r *Registry) take(gen uint64, s *entry, life Lifecycle, why string) *worker {
	var w *worker
	r.ifCurrent(gen, func() {
		w = s.w
		if w == nil {
			return
		}
		s.w, s.life, s.why = nil, life, why
		r.removeFanout(w)
	})
	return w
}

// finished takes back a worker that has finished with its adapter.
func (r *Registry) finished(w *worker, unreleased bool, err error) {
	r.mu.Lock()
	delete(r.live, w)
	if !unreleased {
		r.mu.Unlock()
		return
	}
	if r.attachment.attached() && w.s.w != nil && w.s.w != w {
		// A newer adapter of its entry runs and holds the pane: close this
		// one. Otherwise it is kept for the next Detach to release.
		r.mu.Unlock()
		w.closeOnly()
		return
	}
	r.unreleased = append(r.unreleased, w)
	if w.s.w == nil && !r.attachment.attached() {
		w.s.life, w.s.why = LifecycleUnreleased, err.Error()+"; the next Detach tries again"
	}
	r.mu.Unlock()
	r.log.Warn("adapter not released", "adapter", w.s.name, "error", err)
}

// retirePanicked takes a worker whose adapter (or the host's source)
// panicked out of its entry, saying why, and stops it with a release.
func (r *Registry) retirePanicked(w *worker, why string) {
	r.mu.Lock()
	if w.s.w == w {
		w.s.w, w.s.life, w.s.why = nil, LifecyclePanicked, why
		r.removeFanout(w)
	}
	r.mu.Unlock()
	w.stop(fateRelease, time.Now())
}

// waitOpLocked waits for the operation of the transient attachment in progress
// to end (opDone). r.mu is held on entry; it is held again when
// waitOpLocked returns nil, and released when it returns ctx's error
// because ctx ended first.
func (r *Registry) waitOpLocked(ctx context.Context) error {
	done := r.opDone
	r.mu.Unlock()
	select {
	case <-done:
		r.mu.Lock()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
