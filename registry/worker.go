package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
)

// This file is the fan-out: one worker per running adapter, each with one
// goroutine and a one-slot mailbox, so that no adapter ever waits for
// another and publishing never waits for any.

// Retry policy after a failed delivery: 0.5 s, doubling, capped at 30 s, for
// as long as the failed report is the newest. The timer exists only while a
// failure is outstanding.
const (
	retryInitial = 500 * time.Millisecond
	retryMax     = 30 * time.Second
	maxShift     = 6 // retryInitial << maxShift exceeds retryMax
)

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

// addFanout and removeFanout replace the fan-out list; r.mu is held.
func (r *Registry) addFanout(w *worker) {
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

// fate is what happens to a worker's adapter once its goroutine stops
// delivering: decided by whoever retires it, once.
type fate uint8

const (
	// fateUndecided: retired for a successor that is not running yet. The
	// worker waits for the decision: fateClose once the successor runs, or
	// fateRelease from a Detach that preempts the swap.
	fateUndecided fate = iota
	// fateRelease: release, then close.
	fateRelease
	// fateClose: close without a release; the successor holds the pane.
	fateClose
)

// worker owns one adapter: its goroutine delivers reports until stopped,
// then releases (when its fate says so) and closes the adapter itself.
// Whoever stops a worker waits for done, bounded by the release budget.
type worker struct {
	r   *Registry
	s   *entry
	a   adapter.Adapter
	src session.Source // fixed for the worker's life
	gen uint64         // the attachment it belongs to
	// pred is the worker this one succeeds (a reopen), nil when none. No
	// call reaches a before pred is done (released or closed), or until
	// pred's budget has run out: calls for one pane never cross.
	pred *worker

	kickc   chan struct{} // capacity 1: a pending "something changed"
	stopc   chan struct{} // closed by the first stop
	decided chan struct{} // closed when fate is decided
	done    chan struct{} // closed when the adapter is released and closed, or left unreleased

	mu       sync.Mutex // guards the fields below
	stopped  bool
	stopAt   time.Time // when the worker was stopped: its budget starts
	fate     fate
	deadline time.Time          // end of the release budget
	withdraw func()             // withdraws the delivery in flight
	cancel   context.CancelFunc // cancels the delivery in flight
	cancelT  *time.Timer        // cancels a withdrawn delivery when its share of the budget ends
	// abandoned: a withdrawn delivery was cancelled before it returned; the
	// workspace may still apply it.
	abandoned bool
	err       error // what went wrong releasing or closing
	closed    bool  // Close was called
}

func newWorker(r *Registry, s *entry, a adapter.Adapter, src session.Source, gen uint64, pred *worker) *worker {
	return &worker{r: r, s: s, a: a, src: src, gen: gen, pred: pred,
		kickc: make(chan struct{}, 1), stopc: make(chan struct{}),
		decided: make(chan struct{}), done: make(chan struct{})}
}

// kick marks the mailbox full. It never blocks.
func (w *worker) kick() {
	select {
	case w.kickc <- struct{}{}:
	default: // already full: this change merges into the pending one
	}
}

// stop ends the worker's intake and withdraws its delivery in flight
// (adapter.Withdrawn): one not yet sent is dropped, one that may have been
// sent is waited for, until the first half of the release budget from now
// has passed; then its ctx is cancelled. f decides the adapter's fate, unless
// it is fateUndecided or the fate is already decided: the first decision
// wins. The release and close must end within the budget from now; a
// release decided again later (a second Detach) moves that end to the
// budget from then. stop never blocks and may be called more than once.
func (w *worker) stop(f fate, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.stopped, w.stopAt = true, now
		close(w.stopc)
		if w.withdraw != nil {
			w.withdraw()
			w.armCancelLocked()
		}
	}
	switch {
	case f != fateUndecided && w.fate == fateUndecided:
		w.fate, w.deadline = f, now.Add(w.r.budget)
		close(w.decided)
	case f == fateRelease && w.fate == fateRelease && now.Add(w.r.budget).After(w.deadline):
		// A later Detach gives a worker still busy past an earlier
		// budget its own budget to release in.
		w.deadline = now.Add(w.r.budget)
	}
}

// armCancelLocked cancels the withdrawn delivery in flight when its share of
// the budget (half of it, from stopAt) has passed. w.mu is held.
func (w *worker) armCancelLocked() {
	cancel := w.cancel
	w.cancelT = time.AfterFunc(time.Until(w.stopAt.Add(w.r.budget/2)), func() {
		w.mu.Lock()
		if w.cancel != nil {
			w.abandoned = true
		}
		w.mu.Unlock()
		cancel()
	})
}

// inFlight reports whether a delivery is in flight: the worker is inside
// the adapter's Report. Once the worker is stopped and this is false, it
// never calls Report again.
func (w *worker) inFlight() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cancel != nil
}

// result is the outcome of the worker's release and close; valid once done
// is closed.
func (w *worker) result() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// run is the worker's goroutine.
func (w *worker) run() {
	if w.pred != nil {
		w.awaitPredecessor()
	}
	panicked := w.deliverLoop()
	if panicked != "" {
		w.r.retirePanicked(w, panicked)
	}
	w.finish()
}

// awaitPredecessor waits until the predecessor is done with its adapter,
// bounded: past the predecessor's budget, an adapter that ignores its
// cancelled ctx is not waited for any more.
func (w *worker) awaitPredecessor() {
	p := w.pred
	w.pred = nil
	<-p.decided // decided by start, before this goroutine began
	p.mu.Lock()
	deadline := p.deadline
	p.mu.Unlock()
	t := time.NewTimer(time.Until(deadline.Add(cancelGrace)))
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		w.r.log.Warn("the adapter it replaces did not return within the release budget; going on", "adapter", w.s.name)
	}
}

// finish releases (if its fate says so) and closes the adapter, each
// guarded and bounded by the release budget, then hands the worker back to
// the registry. A release that fails leaves the adapter open for the next
// Detach to try again, unless it panicked.
func (w *worker) finish() {
	<-w.decided
	w.mu.Lock()
	f, deadline, abandoned := w.fate, w.deadline, w.abandoned
	w.mu.Unlock()
	var err error
	if abandoned {
		err = fmt.Errorf("its report in flight did not return within %v of being withdrawn and was cancelled; the workspace may still apply it after the release", w.r.budget/2)
	}
	unreleased := false
	if f == fateRelease {
		releaseBy := deadline.Add(-w.r.budget / closeShare)
		if !time.Now().Before(releaseBy) {
			err = errors.Join(err, fmt.Errorf("release: not attempted: the release budget (%v) ran out while the adapter was still in Report", w.r.budget))
			unreleased = true
		} else {
			ctx, cancel := context.WithDeadline(context.Background(), releaseBy)
			panicked, rerr := w.call("Release", func() error { return optional.Release(ctx, w.a) })
			cancel()
			if rerr != nil {
				err = errors.Join(err, fmt.Errorf("release: %w", rerr))
				unreleased = !panicked
			}
		}
	}
	if !unreleased {
		if cerr := w.closeAdapter(deadline); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
	w.r.finished(w, unreleased, err)
	close(w.done)
}

// closeAdapter closes the adapter once, guarded and bounded by deadline
// (never less than closeMin from now).
func (w *worker) closeAdapter(deadline time.Time) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	ctx, cancel := context.WithDeadline(context.Background(), later(deadline, time.Now().Add(closeMin)))
	defer cancel()
	if _, err := w.call("Close", func() error { return optional.Close(ctx, w.a) }); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	return nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// closeOnly closes an adapter left unreleased, without a release: a new
// attachment takes the pane over.
func (w *worker) closeOnly() {
	if err := w.closeAdapter(time.Now().Add(w.r.budget / closeShare)); err != nil {
		w.r.log.Warn("closing an adapter left unreleased", "adapter", w.s.name, "error", err)
	}
}

// retryRelease tries again to release an adapter that a Detach left
// unreleased, on a new goroutine, within the budget from now. It returns a
// new worker for the same adapter, whose done channel is closed when the
// attempt ends; w itself is no longer used.
func (w *worker) retryRelease(now time.Time) *worker {
	n := newWorker(w.r, w.s, w.a, w.src, w.gen, nil)
	n.closed = w.closed
	n.stop(fateRelease, now)
	w.r.addLive(n)
	go n.finish()
	return n
}

// call runs f, a call into the adapter, recovering a panic as an
// adapter_panic diagnostic and an error.
func (w *worker) call(what string, f func() error) (panicked bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			w.r.diagnose(w.s, nil, adapter.NewDiagnostic(w.s.name, adapter.KindAdapterPanic, "%s: %v", what, p))
			panicked, err = true, fmt.Errorf("adapter %s panicked in %s", w.s.name, what)
		}
	}()
	return false, f()
}

// deliverLoop pulls the newest snapshot whenever the mailbox is full,
// reduces it and delivers the report unless it equals the last one
// delivered; it retries a failed delivery and refreshes a delivered one
// (adapter.Refresher). A change within the throttle window of the last delivery
// waits for the window to end, merged with every change after it. It
// returns when the worker is stopped, or, when the adapter or the host's
// source panicked, why ("" otherwise).
func (w *worker) deliverLoop() (panicked string) {
	var (
		last     adapter.Report
		haveLast bool
		// failed is the report whose delivery failed, while its retry is
		// pending: a notification that reduces to it again waits for the
		// retry, so that the backoff holds however often the host
		// publishes.
		failed     adapter.Report
		haveFailed bool
		identity   = w.r.opts.Host.Identity
		retry      timer
		refresh    timer
		throttle   timer
		sentAt     time.Time // when the last delivery started
		shift      int       // the next retry waits retryInitial << shift
	)
	defer retry.stop()
	defer refresh.stop()
	defer throttle.stop()
	const adapterPanicked = "the adapter panicked and was stopped"
	for {
		// Stopping wins over a pending kick.
		select {
		case <-w.stopc:
			return ""
		default:
		}
		refreshing, retrying := false, false
		select {
		case <-w.stopc:
			return ""
		case <-w.kickc:
			if throttle.c != nil {
				continue // merged into the change the window holds
			}
			if wait := w.r.window - time.Since(sentAt); !sentAt.IsZero() && wait > 0 {
				throttle.set(wait)
				continue
			}
		case <-throttle.c:
			throttle.fired()
		case <-retry.c:
			retry.fired()
			retrying = true
			w.s.retries.Add(1)
		case <-refresh.c:
			refresh.fired()
			refreshing = true
		}
		snap, err := w.r.snapshot(w.src)
		if err != nil {
			return err.Error()
		}
		if id := snap.Identity; id != (session.Identity{}) && id != identity {
			identity = id
			if w.r.guard(w.s, "SetSession", func() { optional.SetSession(w.a, id) }) {
				return adapterPanicked
			}
		}
		rep, ok := reducer.Reduce(snap)
		if !ok {
			w.s.unknown.Add(1)
			continue
		}
		if _, children := w.a.(adapter.ChildReporter); !children {
			rep.Children = adapter.Children{} // the parent's reduced state only
		}
		if (haveLast && rep == last && !refreshing) || (haveFailed && rep == failed && !retrying) {
			w.s.unchanged.Add(1)
			continue
		}
		sentAt = time.Now()
		stopped, panicked, err := w.deliver(rep)
		switch {
		case panicked:
			return adapterPanicked
		case stopped, errors.Is(err, adapter.ErrWithdrawn):
			// Withdrawn before it was sent: reporting has stopped.
			return ""
		case err == nil:
			if refreshing && haveLast && rep == last {
				w.s.refreshes.Add(1)
			}
			last, haveLast, haveFailed = rep, true, false
			w.s.delivered.Add(1)
			w.r.mu.Lock()
			w.s.last, w.s.lastAt, w.s.haveLast = rep, time.Now(), true
			w.r.mu.Unlock()
			retry.stop()
			shift = 0
			var every time.Duration
			if w.r.guard(w.s, "RefreshInterval", func() { every = optional.RefreshInterval(w.a, rep) }) {
				return adapterPanicked
			}
			refresh.set(every)
		default:
			// Not delivered: forget "last delivered" so the same state is
			// tried again when the backoff ends, for as long as it is the
			// newest (a newer state is tried at once).
			haveLast = false
			failed, haveFailed = rep, true
			w.s.failed.Add(1)
			w.r.log.Debug("delivery failed", "adapter", w.s.name, "state", rep.State.String(), "error", err)
			refresh.stop()
			retry.set(min(retryInitial<<shift, retryMax))
			shift = min(shift+1, maxShift)
		}
	}
}

// deliver calls Report with a context that stop withdraws (and cancels
// when the withdrawal's share of the budget ends), recovering a panic. It
// does not call Report once the worker is stopped.
func (w *worker) deliver(rep adapter.Report) (stopped, panicked bool, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx, withdraw := adapter.WithWithdraw(ctx)
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return true, false, nil
	}
	w.cancel, w.withdraw = cancel, withdraw
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.cancel, w.withdraw = nil, nil
		if w.cancelT != nil {
			w.cancelT.Stop()
			w.cancelT = nil
		}
		w.mu.Unlock()
	}()
	panicked, err = w.call("Report", func() error { return w.a.Report(ctx, rep) })
	return false, panicked, err
}

// timer is an optional timer: c is nil while it is not set, so that a
// select on it never fires.
type timer struct {
	t *time.Timer
	c <-chan time.Time
}

// set arms the timer for d from now, replacing any pending one; d <= 0
// stops it.
func (t *timer) set(d time.Duration) {
	t.stop()
	if d > 0 {
		t.t = time.NewTimer(d)
		t.c = t.t.C
	}
}

func (t *timer) stop() {
	if t.t != nil {
		t.t.Stop()
		t.t, t.c = nil, nil
	}
}

// fired forgets a timer whose channel was read.
func (t *timer) fired() { t.t, t.c = nil, nil }

// closePreempted closes an adapter that never reported (opened, then
// preempted), bounded.
func closePreempted(a adapter.Adapter) {
	ctx, cancel := context.WithTimeout(context.Background(), closeMin)
	defer cancel()
	defer func() { _ = recover() }()
	_ = optional.Close(ctx, a)
}
