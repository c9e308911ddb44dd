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
)

// This file holds every transition of the registry's control state (phase,
// generation, the operation in progress, the live and unreleased workers,
// each slot's worker) and nothing else. Each is one function that takes
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
// attaching in a new generation, and returns the operation and the
// adapters an earlier Detach left unreleased, for the caller to close (the
// new ones take the pane over). already is true when the registry is
// attached: there is nothing to do.
func (r *Registry) beginAttach(ctx context.Context, src session.Source) (o op, stale []*worker, already bool, err error) {
	r.mu.Lock()
	for r.phase == phaseAttaching || r.phase == phaseDetaching {
		if err := r.waitOpLocked(ctx); err != nil {
			return op{}, nil, false, fmt.Errorf("registry: attach: %w", err)
		}
	}
	defer r.mu.Unlock()
	if r.phase.attached() {
		return op{}, nil, true, nil
	}
	if err := ctx.Err(); err != nil {
		return op{}, nil, false, fmt.Errorf("registry: attach: %w", err)
	}
	stale, r.unreleased = r.unreleased, nil
	r.gen++
	r.attachGen = r.gen
	r.phase = phaseAttaching
	r.preempt = make(chan struct{})
	r.src = src
	for _, s := range r.slots {
		s.life, s.why, s.seen, s.settingsErr, s.w = LifecycleNotAttached, "", view{}, "", nil
	}
	return r.newOpLocked(ctx), stale, false, nil
}

// newOpLocked makes the operation of the current generation; r.mu is held.
func (r *Registry) newOpLocked(parent context.Context) op {
	ctx, cancel := context.WithCancel(parent)
	o := op{gen: r.gen, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	r.opDone, r.opCancel = o.done, cancel
	return o
}

// endOp ends o, which began in phase from (attaching or applying): the
// registry is attached again, unless a Detach preempted o or an earlier
// failure ended the attachment.
func (r *Registry) endOp(o op, from phase) {
	r.mu.Lock()
	if r.gen == o.gen && r.phase == from {
		r.phase, r.opCancel = phaseAttached, nil
	}
	close(o.done)
	r.mu.Unlock()
	o.cancel()
}

// failAttach ends the attachment of generation gen before anything ran
// (its Subscribe failed): the registry is detached again.
func (r *Registry) failAttach(gen uint64) {
	r.keep(gen, func() { r.phase, r.src, r.opCancel = phaseDetached, nil, nil })
}

// beginApply starts a settings change for the attachment of generation
// gen: it waits for that attachment's Attach to end (a Detach that
// preempts it ends the wait at once, even while the Attach is stuck in a
// driver), then moves the registry from attached to applying. ok is false
// when the attachment has ended or is not attached.
func (r *Registry) beginApply(gen uint64) (o op, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.gen == gen && r.phase == phaseAttaching {
		done, preempt := r.opDone, r.preempt
		r.mu.Unlock()
		select {
		case <-done:
		case <-preempt:
		}
		r.mu.Lock()
	}
	if r.gen != gen || r.phase != phaseAttached {
		return op{}, false
	}
	r.phase = phaseApplying
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
// replaced by a successor that is not running yet is released too. ok is
// false when there is nothing to detach.
func (r *Registry) beginDetach(ctx context.Context, start time.Time) (p detachPlan, ok bool, err error) {
	r.mu.Lock()
	for r.phase == phaseDetaching {
		if err := r.waitOpLocked(ctx); err != nil {
			return detachPlan{}, false, fmt.Errorf("registry: detach: %w while another Detach was in progress", err)
		}
	}
	defer r.mu.Unlock()
	if r.phase == phaseDetached && len(r.unreleased) == 0 {
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
	r.phase = phaseDetaching
	p = detachPlan{gen: r.gen, done: make(chan struct{}), ws: slices.Collect(maps.Keys(r.live)),
		stale: r.unreleased, unsub: r.unsubscribe, watcher: r.watcher}
	r.opDone = p.done
	r.fanout.Store(nil)
	r.unsubscribe, r.watcher, r.unreleased = nil, nil, nil
	for _, s := range r.slots {
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
		r.phase = phaseDetached
		r.src = nil
	}
	close(p.done)
	r.mu.Unlock()
}

// keep runs f under the lock if gen is still the current generation, and
// reports whether it did. An operation uses it to hand over what it built;
// when it returns false, a Detach has preempted the operation, which must
// then undo what it built itself.
func (r *Registry) keep(gen uint64, f func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gen != gen {
		return false
	}
	f()
	return true
}

// start hands a to a new worker for s and reports the current state at
// once. pred, when not nil, is the worker a replaces: it is closed without a
// release, and the new worker makes no call before pred is done. If a Detach
// preempted the operation, a is closed instead (it never reported, so there
// is nothing to release) and start returns false.
func (r *Registry) start(gen uint64, s *slot, a adapter.Adapter, seen view, pred *worker) bool {
	var w *worker
	if !r.keep(gen, func() {
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
	go w.run()
	w.kick()
	return true
}

// take removes s's running worker from s and from the fan-out and returns
// it, leaving s in life (nil when s runs nothing, or when a Detach
// preempted the operation). The slot changes first, so Explain never shows
// an adapter that is being stopped as active; the worker stays in r.live
// until it has finished, so that a Detach finds it.
func (r *Registry) take(gen uint64, s *slot, life Lifecycle, why string) *worker {
	var w *worker
	r.keep(gen, func() {
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
	if r.attachGen != w.gen && r.phase.attached() {
		// A newer attachment runs its own adapter: close this one.
		r.mu.Unlock()
		w.closeOnly()
		return
	}
	r.unreleased = append(r.unreleased, w)
	if w.s.w == nil && !r.phase.attached() {
		w.s.life, w.s.why = LifecycleUnreleased, err.Error()+"; the next Detach tries again"
	}
	r.mu.Unlock()
	r.log.Warn("adapter not released", "adapter", w.s.name, "error", err)
}

// retirePanicked takes a worker whose adapter (or the host's source)
// panicked out of its slot, saying why, and stops it with a release.
func (r *Registry) retirePanicked(w *worker, why string) {
	r.mu.Lock()
	if w.s.w == w {
		w.s.w, w.s.life, w.s.why = nil, LifecyclePanicked, why
		r.removeFanout(w)
	}
	r.mu.Unlock()
	w.stop(fateRelease, time.Now())
}

// waitOpLocked waits for the operation of the transient phase in progress
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
