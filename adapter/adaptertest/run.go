package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/session"
)

// CallTimeout is how long [Run] waits for any one call into the adapter
// before it fails the check instead of hanging the test binary.
const CallTimeout = 10 * time.Second

// CancelBound is how soon Report and Release must return when their context
// is already cancelled. It is generous (an adapter that checks ctx returns in
// microseconds) so that a loaded machine never fails a good adapter, and far
// below a workspace call's own deadline, so that one that ignores ctx fails.
const CancelBound = 2 * time.Second

// Run checks that the adapters returned by open keep the contract of
// [adapter.Adapter] and of the optional interfaces they implement. It runs
// one subtest per rule, each with a fresh adapter from open(t) (t is the
// subtest's), and closes every adapter it opened when the subtest ends:
//
//   - ReportEveryState: Report accepts every report the reducer can produce,
//     in every state, without SetSession having been called.
//   - ReportCancelledContext: Report, and Release when implemented, with an
//     already-cancelled ctx return within [CancelBound], with nil or an
//     error wrapping ctx.Err(), and the next Report with a live ctx still
//     succeeds. The registry relies on this to keep Detach bounded.
//   - ReportSequence: working, blocked, working, idle are accepted in turn.
//   - ReleaseWithoutReport: Release (when implemented) succeeds on an
//     adapter that never reported.
//   - ReleaseThenClose: after a Report, Release (when implemented) and then
//     Close (when implemented) return nil.
//   - CloseIdempotent: a second Close returns nil.
//   - ReportAfterClose: Report after Close fails with [adapter.ErrClosed].
//   - ReleaseAfterClose: Release after Close fails with [adapter.ErrClosed].
//   - SetSessionBeforeReport: SetSession (when implemented), including with
//     a changed or empty identity, does not make Report fail.
//   - DetailsConcurrentWithReport: Details (when implemented) can run while
//     Report does; run the tests with -race for this check to mean much.
//   - NoGoroutineLeftAfterClose: after Release and Close, no goroutine the
//     adapter started is left (checked with goleak, with its usual retries).
//
// A check that needs an optional interface the adapter lacks is skipped.
// Every call into the adapter is given [CallTimeout]; a call that does not
// return by then fails its check, and its goroutine is left behind.
//
// The goroutine check compares the goroutines before open with those after
// Close, so Run must not run in parallel with tests that start goroutines of
// their own: do not call t.Parallel around it.
func Run(t *testing.T, open func(t *testing.T) adapter.Adapter) {
	t.Helper()
	s := suite{timeout: CallTimeout}
	for _, c := range s.checks() {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, func() adapter.Adapter { return open(t) })
		})
	}
}

// tb is the part of testing.TB the checks use. It is an interface of its
// own so that this package's tests can run a check against a fake and see
// it fail.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	Cleanup(func())
	Context() context.Context
}

type check struct {
	name string
	run  func(t tb, open func() adapter.Adapter)
}

// suite holds the checks' settings, so that tests can shorten the timeout.
type suite struct {
	timeout time.Duration
}

func (s suite) checks() []check {
	return []check{
		{"ReportEveryState", s.reportEveryState},
		{"ReportCancelledContext", s.reportCancelledContext},
		{"ReportSequence", s.reportSequence},
		{"ReleaseWithoutReport", s.releaseWithoutReport},
		{"ReleaseThenClose", s.releaseThenClose},
		{"CloseIdempotent", s.closeIdempotent},
		{"ReportAfterClose", s.reportAfterClose},
		{"ReleaseAfterClose", s.releaseAfterClose},
		{"SetSessionBeforeReport", s.setSessionBeforeReport},
		{"DetailsConcurrentWithReport", s.detailsConcurrentWithReport},
		{"NoGoroutineLeftAfterClose", s.noGoroutineLeftAfterClose},
	}
}

// everyReport lists every report the reducer produces, with no two equal
// reports in a row (the registry never sends the same report twice running).
var everyReport = []adapter.Report{
	{State: adapter.StateWorking, Reason: adapter.ReasonExecuting},
	{State: adapter.StateWorking, Reason: adapter.ReasonExecuting, Message: adapter.MessageWorkflowNeedsAttention},
	{State: adapter.StateWorking, Reason: adapter.ReasonAutomaticContinuation},
	{State: adapter.StateWorking, Reason: adapter.ReasonAutomaticContinuation, Message: adapter.MessageWorkflowNeedsAttention},
	{State: adapter.StateWorking, Reason: adapter.ReasonRetrying},
	{State: adapter.StateWorking, Reason: adapter.ReasonRetrying, Message: adapter.MessageWorkflowNeedsAttention},
	{State: adapter.StateWorking, Reason: adapter.ReasonStopping},
	{State: adapter.StateWorking, Reason: adapter.ReasonStopping, Message: adapter.MessageWorkflowNeedsAttention},
	{State: adapter.StateWorking, Reason: adapter.ReasonBackgroundTasks},
	{State: adapter.StateWorking, Reason: adapter.ReasonBackgroundTasks, Message: adapter.MessageWorkflowNeedsAttention},
	{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval},
	{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForInput},
	{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWorkflowNeedsAttention},
	{State: adapter.StateBlocked, Reason: adapter.ReasonManualIntervention, Message: adapter.MessageWorkflowNeedsAttention},
	{State: adapter.StateIdle, Reason: adapter.ReasonPaused},
	{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent},
	{State: adapter.StateIdle, Reason: adapter.ReasonCompleted},
	{State: adapter.StateIdle, Reason: adapter.ReasonError},
	{State: adapter.StateIdle, Reason: adapter.ReasonNone}, // valid, though the reducer never gives it
}

var (
	working = adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}
	blocked = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval}
	idle    = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent}
)

// call runs f, failing t if it does not return within the suite's timeout.
// f gets a context that is cancelled when the check ends or the time is up.
func (s suite) call(t tb, what string, f func(ctx context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), s.timeout)
	defer cancel()
	return s.wait(t, what, func() error { return f(ctx) })
}

// wait runs f on a goroutine of its own and waits at most the suite's
// timeout for it. A call that hangs is abandoned: its goroutine exits
// whenever f returns, since the result channel has room for the result.
func (s suite) wait(t tb, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		t.Fatalf("%s did not return within %v", what, s.timeout)
		return nil
	}
}

// open opens an adapter and arranges for it to be closed (with a fresh
// context, since t's is cancelled by then) when the check ends.
func (s suite) open(t tb, open func() adapter.Adapter) adapter.Adapter {
	t.Helper()
	a := open()
	if a == nil {
		t.Fatalf("open returned a nil adapter")
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		defer cancel()
		err := s.wait(t, "Close at cleanup", func() error { return optional.Close(ctx, a) })
		if err != nil {
			t.Errorf("Close at cleanup = %v; want nil", err)
		}
	})
	return a
}

func (s suite) report(t tb, a adapter.Adapter, r adapter.Report) {
	t.Helper()
	if err := s.call(t, fmt.Sprintf("Report(%v)", r), func(ctx context.Context) error { return a.Report(ctx, r) }); err != nil {
		t.Errorf("Report(%v) = %v; want nil", r, err)
	}
}

func (s suite) release(t tb, a adapter.Adapter) {
	t.Helper()
	if err := s.call(t, "Release", func(ctx context.Context) error { return optional.Release(ctx, a) }); err != nil {
		t.Errorf("Release = %v; want nil", err)
	}
}

func (s suite) close(t tb, a adapter.Adapter) {
	t.Helper()
	if err := s.call(t, "Close", func(ctx context.Context) error { return optional.Close(ctx, a) }); err != nil {
		t.Errorf("Close = %v; want nil", err)
	}
}

func (s suite) reportEveryState(t tb, open func() adapter.Adapter) {
	a := s.open(t, open)
	for _, r := range everyReport {
		s.report(t, a, r)
	}
}

func (s suite) reportCancelledContext(t tb, open func() adapter.Adapter) {
	a := s.open(t, open)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	start := time.Now()
	err := s.wait(t, "Report with a cancelled context", func() error { return a.Report(ctx, working) })
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Report with a cancelled context = %v; want nil or an error wrapping %v", err, context.Canceled)
	}
	if took := time.Since(start); took > CancelBound {
		t.Errorf("Report with a cancelled context took %v; want it to return within %v", took, CancelBound)
	}
	if _, ok := a.(adapter.Releaser); ok {
		start := time.Now()
		err := s.wait(t, "Release with a cancelled context", func() error { return optional.Release(ctx, a) })
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Release with a cancelled context = %v; want nil or an error wrapping %v", err, context.Canceled)
		}
		if took := time.Since(start); took > CancelBound {
			t.Errorf("Release with a cancelled context took %v; want it to return within %v", took, CancelBound)
		}
	}
	s.report(t, a, blocked)
}

func (s suite) reportSequence(t tb, open func() adapter.Adapter) {
	a := s.open(t, open)
	for _, r := range []adapter.Report{working, blocked, working, idle} {
		s.report(t, a, r)
	}
}

func (s suite) releaseWithoutReport(t tb, open func() adapter.Adapter) {
	a := s.open(t, open)
	if _, ok := a.(adapter.Releaser); !ok {
		t.Skipf("%T does not implement adapter.Releaser", a)
	}
	s.release(t, a)
}

func (s suite) releaseThenClose(t tb, open func() adapter.Adapter) {
	a := s.open(t, open)
	s.report(t, a, working)
	s.release(t, a)
	s.close(t, a)
}

func (s suite) closeIdempotent(t tb, open func() adapter.Adapter) {
	a := s.open(t, open)
	if _, ok := a.(adapter.Closer); !ok {
		t.Skipf("%T does not implement adapter.Closer", a)
	}
	s.report(t, a, working)
	s.close(t, a)
	s.close(t, a)
}

func (s suite) reportAfterClose(t tb, open func() adapter.Adapter) {
	a := s.open(t, open)
	if _, ok := a.(adapter.Closer); !ok {
		t.Skipf("%T does not implement adapter.Closer", a)
	}
	s.report(t, a, working)
	s.close(t, a)
	err := s.call(t, "Report after Close", func(ctx context.Context) error { return a.Report(ctx, idle) })
	if !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Report after Close = %v; want an error wrapping %v", err, adapter.ErrClosed)
	}
}

func (s suite) releaseAfterClose(t tb, open func() adapter.Adapter) {
	a := s.open(t, open)
	_, releaser := a.(adapter.Releaser)
	_, closer := a.(adapter.Closer)
	if !releaser || !closer {
		t.Skipf("%T does not implement both adapter.Releaser and adapter.Closer", a)
	}
	s.close(t, a)
	err := s.call(t, "Release after Close", func(ctx context.Context) error { return optional.Release(ctx, a) })
	if !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Release after Close = %v; want an error wrapping %v", err, adapter.ErrClosed)
	}
}

func (s suite) setSessionBeforeReport(t tb, open func() adapter.Adapter) {
	a := s.open(t, open)
	if _, ok := a.(adapter.SessionAware); !ok {
		t.Skipf("%T does not implement adapter.SessionAware", a)
	}
	ids := []session.Identity{
		{ID: "adaptertest-session-1", Path: "/nonexistent/adaptertest/session-1.jsonl"},
		{ID: "adaptertest-session-2"},
		{},
	}
	reports := []adapter.Report{working, blocked, idle}
	for i, id := range ids {
		err := s.wait(t, "SetSession", func() error { optional.SetSession(a, id); return nil })
		if err != nil {
			t.Fatalf("SetSession: %v", err)
		}
		s.report(t, a, reports[i])
	}
}

func (s suite) detailsConcurrentWithReport(t tb, open func() adapter.Adapter) {
	a := s.open(t, open)
	e, ok := a.(adapter.Detailer)
	if !ok {
		t.Skipf("%T does not implement adapter.Detailer", a)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				_ = e.Details()
			}
		}
	})
	defer wg.Wait()
	defer close(stop)
	for range 4 {
		for _, r := range []adapter.Report{working, blocked, idle} {
			s.report(t, a, r)
		}
	}
}

func (s suite) noGoroutineLeftAfterClose(t tb, open func() adapter.Adapter) {
	before := goleak.IgnoreCurrent()
	a := s.open(t, open)
	s.report(t, a, working)
	s.report(t, a, idle)
	s.release(t, a)
	s.close(t, a)
	if err := goleak.Find(before); err != nil {
		t.Errorf("goroutines left after Close: %v", err)
	}
}
