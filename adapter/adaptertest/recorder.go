package adaptertest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// Recorder is an adapter that remembers what it is told. Hosts use it in
// their tests and examples to see what reached "the workspace"; tests of the
// registry use its failure controls ([Recorder.SetErr], [Recorder.Block]) to
// play a broken or stuck workspace.
//
// A Recorder implements [adapter.Adapter], [adapter.Releaser],
// [adapter.Closer], [adapter.SessionAware] and [adapter.Detailer], and passes
// [Run]. The zero value is ready to use; a Recorder must not be copied after
// first use. Every method is safe for concurrent use.
//
// After Close, Report and Release return an error wrapping
// [adapter.ErrClosed]; the inspection methods keep working.
type Recorder struct {
	mu       sync.Mutex
	calls    []adapter.Report // every Report call, in order
	reports  []adapter.Report // the calls that succeeded, in order
	released int
	closed   bool
	session  session.Identity
	err      error         // returned by Report while non-nil
	gate     chan struct{} // non-nil while blocked; closed by Unblock and Close
	changed  chan struct{} // closed on the next change; created by waiters
}

var (
	_ adapter.Adapter      = (*Recorder)(nil)
	_ adapter.Releaser     = (*Recorder)(nil)
	_ adapter.Closer       = (*Recorder)(nil)
	_ adapter.SessionAware = (*Recorder)(nil)
	_ adapter.Detailer     = (*Recorder)(nil)
)

// NewRecorder returns an empty Recorder. It is the same as new(Recorder).
func NewRecorder() *Recorder { return new(Recorder) }

// Report records the call in [Recorder.Calls], then delivers r unless the
// Recorder is closed (an error wrapping [adapter.ErrClosed]), ctx is done (an
// error wrapping ctx.Err()), or an error was set with [Recorder.SetErr] (that
// error, as is). While the Recorder is blocked ([Recorder.Block]), Report
// waits for Unblock, Close or ctx, whichever comes first. A delivered report
// is appended to [Recorder.Reports].
func (r *Recorder) Report(ctx context.Context, rep adapter.Report) error {
	r.mu.Lock()
	r.calls = append(r.calls, rep)
	r.notifyLocked()
	if err := r.refuseLocked(ctx); err != nil {
		r.mu.Unlock()
		return err
	}
	if gate := r.gate; gate != nil {
		r.mu.Unlock()
		select {
		case <-gate:
		case <-ctx.Done():
			return fmt.Errorf("adaptertest: report: %w", ctx.Err())
		}
		r.mu.Lock()
		if err := r.refuseLocked(ctx); err != nil {
			r.mu.Unlock()
			return err
		}
	}
	if r.err != nil {
		err := r.err
		r.mu.Unlock()
		return err
	}
	r.reports = append(r.reports, rep)
	r.notifyLocked()
	r.mu.Unlock()
	return nil
}

// refuseLocked returns why a call must not go ahead, or nil.
func (r *Recorder) refuseLocked(ctx context.Context) error {
	if r.closed {
		return fmt.Errorf("adaptertest: report: %w", adapter.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("adaptertest: report: %w", err)
	}
	return nil
}

// Release counts a release ([Recorder.Released]). It fails with an error
// wrapping [adapter.ErrClosed] after Close, and with one wrapping ctx.Err()
// when ctx is already done. It is not affected by SetErr or Block.
func (r *Recorder) Release(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("adaptertest: release: %w", adapter.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("adaptertest: release: %w", err)
	}
	r.released++
	r.notifyLocked()
	return nil
}

// Close marks the Recorder closed and wakes any Report blocked by
// [Recorder.Block], which then fails with [adapter.ErrClosed]. It is
// idempotent, always returns nil, and ignores ctx: it never waits.
func (r *Recorder) Close(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	r.unblockLocked()
	r.notifyLocked()
	return nil
}

// SetSession records id; [Recorder.Session] returns it.
func (r *Recorder) SetSession(id session.Identity) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.session = id
	r.notifyLocked()
}

// Details returns the Recorder's counters: "calls", "reports", "released",
// "closed", and "session" (the session id, when one was set).
func (r *Recorder) Details() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[string]string{
		"calls":    strconv.Itoa(len(r.calls)),
		"reports":  strconv.Itoa(len(r.reports)),
		"released": strconv.Itoa(r.released),
		"closed":   strconv.FormatBool(r.closed),
	}
	if r.session.ID != "" {
		m["session"] = r.session.ID
	}
	return m
}

// Calls returns a copy of every report passed to Report, delivered or not,
// in call order.
func (r *Recorder) Calls() []adapter.Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// Reports returns a copy of the reports delivered successfully, in order.
func (r *Recorder) Reports() []adapter.Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reports)
}

// Last returns the last report delivered successfully, and false when there
// is none.
func (r *Recorder) Last() (adapter.Report, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reports) == 0 {
		return adapter.Report{}, false
	}
	return r.reports[len(r.reports)-1], true
}

// Released returns how many times Release succeeded.
func (r *Recorder) Released() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.released
}

// Closed reports whether Close was called.
func (r *Recorder) Closed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// Session returns the identity last passed to SetSession.
func (r *Recorder) Session() session.Identity {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.session
}

// SetErr makes every later Report fail with err (returned as is, so tests
// can compare it); nil makes Reports succeed again. A failed call shows in
// [Recorder.Calls] but not in [Recorder.Reports].
func (r *Recorder) SetErr(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

// Block makes Report wait, from now on, until [Recorder.Unblock], Close, or
// the call's ctx is done: a stuck workspace. Calls that are blocked show in
// [Recorder.Calls]; use [Recorder.WaitCalls] to know one has arrived. Block
// while blocked does nothing.
func (r *Recorder) Block() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gate == nil {
		r.gate = make(chan struct{})
	}
}

// Unblock lets every blocked Report go ahead and stops blocking later ones.
// Unblock while not blocked does nothing.
func (r *Recorder) Unblock() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unblockLocked()
}

func (r *Recorder) unblockLocked() {
	if r.gate != nil {
		close(r.gate)
		r.gate = nil
	}
}

// Wait blocks until done returns true for the delivered reports (the same
// slice [Recorder.Reports] would return), or ctx is done, in which case it
// returns an error wrapping ctx.Err(). done is called with no lock held,
// once at first and again after every change to the Recorder; it must not
// keep the slice.
func (r *Recorder) Wait(ctx context.Context, done func(reports []adapter.Report) bool) error {
	return r.wait(ctx, func() []adapter.Report { return r.reports }, done)
}

// WaitCalls is [Recorder.Wait] over every Report call, delivered or not
// (the slice [Recorder.Calls] would return). Use it to know that a call
// reached a blocked or failing Recorder.
func (r *Recorder) WaitCalls(ctx context.Context, done func(calls []adapter.Report) bool) error {
	return r.wait(ctx, func() []adapter.Report { return r.calls }, done)
}

func (r *Recorder) wait(ctx context.Context, list func() []adapter.Report, done func([]adapter.Report) bool) error {
	for {
		r.mu.Lock()
		snap := slices.Clone(list())
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		changed := r.changed
		r.mu.Unlock()
		if done(snap) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("adaptertest: wait: %w", ctx.Err())
		}
	}
}

// notifyLocked wakes every waiter.
func (r *Recorder) notifyLocked() {
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}
