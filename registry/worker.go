package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/panestate/panestate/adapter"
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

// worker owns one adapter: its goroutine delivers reports until stopped,
// then releases (when asked) and closes the adapter itself. Whoever stops a
// worker waits for returned and done, each bounded.
type worker struct {
	r   *Registry
	s   *slot
	a   adapter.Adapter
	src session.Source // fixed for the worker's life
	gen uint64         // the attachment it belongs to

	kickc    chan struct{} // capacity 1: a pending "something changed"
	stopc    chan struct{} // closed by the first stop
	returned chan struct{} // closed when no delivery is in flight any more, for good

	mu       sync.Mutex // guards the fields below
	stopped  bool
	release  bool               // release before closing
	deadline time.Time          // the release's deadline
	cancel   context.CancelFunc // cancels the delivery in flight
	done     chan struct{}      // closed when the adapter is released and closed, or left unreleased
	err      error              // what went wrong releasing or closing
	closed   bool               // Close was called
}

func newWorker(r *Registry, s *slot, a adapter.Adapter, src session.Source, gen uint64) *worker {
	return &worker{r: r, s: s, a: a, src: src, gen: gen,
		kickc: make(chan struct{}, 1), stopc: make(chan struct{}), returned: make(chan struct{}),
		done: make(chan struct{})}
}

// kick marks the mailbox full. It never blocks.
func (w *worker) kick() {
	select {
	case w.kickc <- struct{}{}:
	default:
		w.s.coalesced.Add(1)
	}
}

// stop ends the worker's intake and cancels its delivery in flight at once.
// With release, the adapter is released before it is closed, by deadline
// (the later one, when stop is called again before the release starts). It
// never blocks and may be called more than once: a release asked by any
// call is made.
func (w *worker) stop(release bool, deadline time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if release {
		w.release = true
		if deadline.After(w.deadline) {
			w.deadline = deadline
		}
	}
	if !w.stopped {
		w.stopped = true
		close(w.stopc)
	}
	if w.cancel != nil {
		w.cancel()
	}
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
	panicked := w.deliverLoop()
	close(w.returned)
	if panicked {
		w.r.mu.Lock()
		if w.s.w == w {
			w.s.w, w.s.life, w.s.why = nil, LifecyclePanicked, "the adapter panicked and was stopped"
			w.r.removeFanout(w)
		}
		w.r.mu.Unlock()
		w.stop(true, time.Now().Add(releaseTimeout))
	}
	w.finish()
}

// finish releases (if asked) and closes the adapter, each guarded and
// bounded, then hands the worker back to the registry. A release that
// fails leaves the adapter open for the next Detach to try again, unless it
// panicked.
func (w *worker) finish() {
	w.mu.Lock()
	release, deadline, done := w.release, w.deadline, w.done
	w.mu.Unlock()
	var err error
	unreleased := false
	if release {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		var panicked bool
		panicked, err = w.call("Release", func() error { return adapter.Release(ctx, w.a) })
		cancel()
		if err != nil {
			err = fmt.Errorf("release: %w", err)
			unreleased = !panicked
		}
	}
	if !unreleased {
		if cerr := w.closeAdapter(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
	w.r.finished(w, unreleased, err)
	close(done)
}

// closeAdapter closes the adapter once, guarded and bounded.
func (w *worker) closeAdapter() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if _, err := w.call("Close", func() error { return adapter.Close(ctx, w.a) }); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	return nil
}

// closeOnly closes an adapter left unreleased, without a release: a new
// attachment takes the pane over.
func (w *worker) closeOnly() {
	if err := w.closeAdapter(); err != nil {
		w.r.log.Warn("closing an adapter left unreleased", "adapter", w.s.name, "error", err)
	}
}

// retryRelease tries again to release an adapter that a Detach left
// unreleased, on a new goroutine, by deadline. It returns a new worker for
// the same adapter, whose done channel is closed when the attempt ends; w
// itself is no longer used.
func (w *worker) retryRelease(deadline time.Time) *worker {
	n := newWorker(w.r, w.s, w.a, w.src, w.gen)
	close(n.returned) // nothing is delivered any more
	n.stopped, n.release, n.deadline = true, true, deadline
	close(n.stopc)
	w.r.mu.Lock()
	w.r.live[n] = struct{}{}
	w.r.mu.Unlock()
	go n.finish()
	return n
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

// call runs f, a call into the adapter, recovering a panic as an
// adapter_panic diagnostic and an error.
func (w *worker) call(what string, f func() error) (panicked bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			w.r.diagnose(w.s, adapter.NewDiagnostic(w.s.name, adapter.KindAdapterPanic, "%s: %v", what, p))
			panicked, err = true, fmt.Errorf("adapter %s panicked in %s", w.s.name, what)
		}
	}()
	return false, f()
}

// deliverLoop pulls the newest snapshot whenever the mailbox is full,
// reduces it and delivers the report unless it equals the last one
// delivered; it retries a failed delivery and refreshes a delivered one
// (adapter.Refresher). It returns when the worker is stopped, or true when
// the adapter panicked.
func (w *worker) deliverLoop() (panicked bool) {
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
		shift      int // the next retry waits retryInitial << shift
	)
	defer retry.stop()
	defer refresh.stop()
	for {
		// Stopping wins over a pending kick.
		select {
		case <-w.stopc:
			return false
		default:
		}
		refreshing, retrying := false, false
		select {
		case <-w.stopc:
			return false
		case <-w.kickc:
		case <-retry.c:
			retry.fired()
			retrying = true
			w.s.retries.Add(1)
		case <-refresh.c:
			refresh.fired()
			refreshing = true
		}
		snap := w.src.Snapshot()
		if id := snap.Identity; id != (session.Identity{}) && id != identity {
			identity = id
			if w.r.guard(w.s, "SetSession", func() { adapter.SetSession(w.a, id) }) {
				return true
			}
		}
		rep, ok := reducer.Reduce(snap)
		if !ok {
			w.s.unknown.Add(1)
			continue
		}
		if (haveLast && rep == last && !refreshing) || (haveFailed && rep == failed && !retrying) {
			w.s.unchanged.Add(1)
			continue
		}
		stopped, panicked, err := w.deliver(rep)
		switch {
		case panicked:
			return true
		case stopped:
			return false
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
			if w.r.guard(w.s, "RefreshInterval", func() { every = adapter.RefreshInterval(w.a, rep) }) {
				return true
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

// deliver calls Report with a context that stop cancels, recovering a
// panic. It does not call Report once the worker is stopped.
func (w *worker) deliver(rep adapter.Report) (stopped, panicked bool, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return true, false, nil
	}
	w.cancel = cancel
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.cancel = nil
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
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	defer func() { _ = recover() }()
	_ = adapter.Close(ctx, a)
}
