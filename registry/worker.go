package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

type slotState uint8

const (
	stateNotAttached slotState = iota
	stateActive                // running
	stateDisabled              // turned off by the settings (or off by default)
	stateInactive              // the driver says it does not apply here
	stateOpenFailed            // Open failed for another reason (bad settings)
	statePanicked              // the adapter panicked and was stopped
)

var stateNames = [...]string{StateNotAttached, StateActive, StateDisabled, StateInactive, StateOpenFailed, StatePanicked}

func (s slotState) String() string { return stateNames[s] }

// maxRecentDiagnostics bounds the diagnostics kept per adapter for Explain.
const maxRecentDiagnostics = 8

// slot is one registered driver's place in a registry. Fields are guarded by
// the registry's mu, except the counters, which are atomic.
type slot struct {
	name   string
	driver adapter.Driver
	def    bool     // enabled by default (asked once, at New)
	keys   []string // the settings keys it owns, "enabled" first (asked once, at New)

	state     slotState
	why       string // why it is not active
	reopenErr string // why the last settings change could not be applied
	enabled   bool
	from      settings.Layer
	section   json.RawMessage
	w         *worker

	last     adapter.Report // last delivered report
	lastAt   time.Time
	haveLast bool
	recent   []DiagnosticRecord
	kinds    map[adapter.Kind]uint64

	delivered atomic.Uint64 // reports delivered
	failed    atomic.Uint64 // deliveries that failed
	coalesced atomic.Uint64 // notifications merged into one already pending
	unchanged atomic.Uint64 // reports dropped because equal to the last delivered
	retries   atomic.Uint64 // retries after a failure
	unknown   atomic.Uint64 // snapshots that gave no new report
}

func (s *slot) recordDiagnostic(d adapter.Diagnostic, at time.Time) {
	if s.kinds == nil {
		s.kinds = make(map[adapter.Kind]uint64)
	}
	s.kinds[d.Kind]++
	if len(s.recent) == maxRecentDiagnostics {
		copy(s.recent, s.recent[1:])
		s.recent = s.recent[:maxRecentDiagnostics-1]
	}
	s.recent = append(s.recent, DiagnosticRecord{Diagnostic: d, At: at})
}

// Retry policy after a failed delivery with nothing newer to deliver: 0.5 s,
// doubling, capped at 8 s, five tries; then the state waits for the next
// change. The timer exists only while a failure is outstanding.
const (
	retryInitial = 500 * time.Millisecond
	retryMax     = 8 * time.Second
	retryTries   = 5
	// teardownTimeout bounds Release and Close of an adapter that the
	// registry stops on its own (after a panic).
	teardownTimeout = 5 * time.Second
	// cancelGrace is how long Detach, past its ctx, gives a cancelled
	// delivery to return before leaving it to finish on its own.
	cancelGrace = 50 * time.Millisecond
)

// worker owns one adapter: one goroutine, a one-slot mailbox (kickc), and the
// memory of what was last delivered.
type worker struct {
	r   *Registry
	s   *slot
	a   adapter.Adapter
	src session.Source // fixed for the worker's life: Detach stops workers before the source changes

	kickc chan struct{} // capacity 1: a pending "something changed"
	stopc chan struct{} // closed to stop intake
	done  chan struct{} // closed when run returns

	cancelMu sync.Mutex
	cancel   context.CancelFunc // cancels the delivery in flight

	teardownOnce sync.Once
	teardownErr  error
}

func newWorker(r *Registry, s *slot, a adapter.Adapter, src session.Source) *worker {
	return &worker{r: r, s: s, a: a, src: src,
		kickc: make(chan struct{}, 1), stopc: make(chan struct{}), done: make(chan struct{})}
}

// kick marks the mailbox full. It never blocks.
func (w *worker) kick() {
	select {
	case w.kickc <- struct{}{}:
	default:
		w.s.coalesced.Add(1)
	}
}

// endIntake tells the worker to stop after the delivery in flight. It never
// blocks; call it once.
func (w *worker) endIntake() { close(w.stopc) }

// finish waits for the worker to stop, then releases (if asked) and closes
// the adapter, all bounded by ctx. When ctx ends first, the delivery in
// flight is cancelled; if the adapter does not return at once, it is left to
// finish on its own goroutine, whose teardown (close only, briefly bounded)
// the registry's WaitGroup tracks, and finish returns after cancelGrace.
func (w *worker) finish(ctx context.Context, release bool) error {
	select {
	case <-w.done:
		return w.teardown(ctx, release)
	case <-ctx.Done():
	}
	w.cancelDelivery()
	grace := time.NewTimer(cancelGrace)
	defer grace.Stop()
	select {
	case <-w.done:
		// Cancelled and returned: the release cannot be made in time, but
		// Close frees what the adapter holds.
		return errors.Join(fmt.Errorf("delivery in flight cancelled: %w", ctx.Err()), w.teardown(ctx, false))
	case <-grace.C:
	}
	w.r.workers.Go(func() {
		<-w.done
		tctx, cancel := context.WithTimeout(context.Background(), teardownTimeout)
		defer cancel()
		w.teardown(tctx, false)
	})
	return fmt.Errorf("adapter did not return from a cancelled delivery; it is closed when it does: %w", ctx.Err())
}

func (w *worker) cancelDelivery() {
	w.cancelMu.Lock()
	if w.cancel != nil {
		w.cancel()
	}
	w.cancelMu.Unlock()
}

// teardown releases (if asked) and closes the adapter, once, recovering from
// panics.
func (w *worker) teardown(ctx context.Context, release bool) error {
	w.teardownOnce.Do(func() {
		var errs []error
		if release {
			if err := w.safely(func() error { return adapter.Release(ctx, w.a) }); err != nil {
				errs = append(errs, fmt.Errorf("release: %w", err))
			}
		}
		if err := w.safely(func() error { return adapter.Close(ctx, w.a) }); err != nil {
			errs = append(errs, fmt.Errorf("close: %w", err))
		}
		w.teardownErr = errors.Join(errs...)
	})
	return w.teardownErr
}

func (w *worker) safely(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			w.r.diagnose(w.s, adapter.NewDiagnostic(w.s.name, adapter.KindAdapterPanic, "%v", p))
			err = fmt.Errorf("adapter %s panicked", w.s.name)
		}
	}()
	return f()
}

// run is the worker's goroutine. It pulls the newest snapshot whenever the
// mailbox is full, reduces it and delivers the report unless it equals the
// last one delivered.
func (w *worker) run(life context.Context) {
	defer close(w.done)
	var (
		last     adapter.Report
		haveLast bool
		identity = w.r.opts.Host.Identity
		timer    *time.Timer
		retryC   <-chan time.Time
		tries    int
	)
	stopRetry := func() {
		if timer != nil {
			timer.Stop()
			timer, retryC = nil, nil
		}
		tries = 0
	}
	defer stopRetry()
	for {
		// Stopping wins over a pending kick.
		select {
		case <-w.stopc:
			return
		default:
		}
		retrying := false
		select {
		case <-w.stopc:
			return
		case <-w.kickc:
		case <-retryC:
			timer, retryC = nil, nil
			retrying = true
			w.s.retries.Add(1)
		}
		snap := w.src.Snapshot()
		if id := snap.Identity; id != (session.Identity{}) && id != identity {
			identity = id
			if w.r.guard(w.s, "SetSession", func() { adapter.SetSession(w.a, id) }) {
				w.abandon()
				return
			}
		}
		rep, ok := reducer.Reduce(snap)
		if !ok {
			w.s.unknown.Add(1)
			continue
		}
		if haveLast && rep == last {
			w.s.unchanged.Add(1)
			stopRetry()
			continue
		}
		err, panicked := w.deliver(life, rep)
		if panicked {
			w.r.diagnose(w.s, adapter.NewDiagnostic(w.s.name, adapter.KindAdapterPanic, "report: %v", err))
			w.abandon()
			return
		}
		if err == nil {
			last, haveLast = rep, true
			w.s.delivered.Add(1)
			w.r.mu.Lock()
			w.s.last, w.s.lastAt, w.s.haveLast = rep, time.Now(), true
			w.r.mu.Unlock()
			stopRetry()
			continue
		}
		// Not delivered: forget "last delivered" so the same state is tried
		// again, and retry with backoff unless something newer arrives first.
		haveLast = false
		w.s.failed.Add(1)
		w.r.log.Debug("delivery failed", "adapter", w.s.name, "state", rep.State.String(), "error", err)
		if !retrying {
			tries = 0
		}
		if timer != nil { // a newer state failed while a retry was pending
			timer.Stop()
			timer, retryC = nil, nil
		}
		if tries < retryTries {
			delay := min(retryInitial<<tries, retryMax)
			tries++
			timer = time.NewTimer(delay)
			retryC = timer.C
		}
	}
}

// deliver calls Report with a context the registry can cancel, recovering a
// panic.
func (w *worker) deliver(life context.Context, rep adapter.Report) (err error, panicked bool) {
	ctx, cancel := context.WithCancel(life)
	w.cancelMu.Lock()
	w.cancel = cancel
	w.cancelMu.Unlock()
	defer func() {
		w.cancelMu.Lock()
		w.cancel = nil
		w.cancelMu.Unlock()
		cancel()
		if p := recover(); p != nil {
			err, panicked = fmt.Errorf("%v", p), true
		}
	}()
	return w.a.Report(ctx, rep), false
}

// abandon stops an adapter that panicked: it leaves the fan-out, releases
// and closes (each guarded), and the slot shows why. The chat service goes
// on. Runs on the worker's goroutine.
func (w *worker) abandon() {
	r, s := w.r, w.s
	r.mu.Lock()
	if s.w == w {
		s.w = nil
		s.state, s.why = statePanicked, "the adapter panicked and was stopped"
	}
	r.removeFanout(w)
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), teardownTimeout)
	defer cancel()
	w.teardown(ctx, true)
}
