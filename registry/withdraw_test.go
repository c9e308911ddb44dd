package registry

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// queueAdapter acts a workspace transport under withdrawal: its Report
// waits in a local queue (nothing sent) until the queue opens, then sends,
// and waits for the workspace's answer. It honours adapter.Withdrawn the
// way the rule says: dropped while still queued, waited for once sent.
type queueAdapter struct {
	queue  chan struct{} // closed: the request may be sent
	answer chan struct{} // closed: the workspace answers a sent request
	events *eventLog

	mu      sync.Mutex
	bare    int // Report calls whose ctx carried no withdrawal signal
	reports int
}

func (a *queueAdapter) Report(ctx context.Context, r adapter.Report) error {
	a.mu.Lock()
	a.reports++
	n := a.reports
	if adapter.Withdrawn(ctx) == nil {
		a.bare++
	}
	a.mu.Unlock()
	if n == 1 {
		return nil // the state at Attach: delivered at once
	}
	select {
	case <-a.queue:
	case <-adapter.Withdrawn(ctx):
		a.events.add("dropped " + r.State.String())
		return adapter.ErrWithdrawn
	case <-ctx.Done():
		return ctx.Err()
	}
	a.events.add("sent " + r.State.String())
	select {
	case <-a.answer:
		a.events.add("answered " + r.State.String())
		return nil
	case <-ctx.Done():
		a.events.add("abandoned " + r.State.String())
		return ctx.Err()
	}
}

func (a *queueAdapter) Release(context.Context) error {
	a.events.add("release")
	return nil
}

// attachedQueue attaches a registry with one queueAdapter, waits until the
// state at Attach is delivered, and publishes a change: its report is
// queued. It runs inside a synctest bubble.
func attachedQueue(t *testing.T) (*Registry, *session.Store, *queueAdapter, *eventLog) {
	t.Helper()
	log := &eventLog{}
	a := &queueAdapter{queue: make(chan struct{}), answer: make(chan struct{}), events: log}
	opts := testOptions(t)
	opts.Drivers = map[string]adapter.Driver{"q": adapter.DriverFunc(func(context.Context, adapter.Params) (adapter.Adapter, error) { return a, nil })}
	r := mustNew(t, opts)
	store := session.NewStore()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	synctest.Wait() // the state at Attach is delivered
	store.AgentStart()
	return r, store, a, log
}

// The registry withdraws the report in flight when reporting stops, by
// Detach or by the settings turning the adapter off: one still queued is
// dropped at once; one sent is waited for, and the release never comes
// before its answer.
func TestWithdrawal(t *testing.T) {
	for _, tt := range []struct {
		name    string
		sent    bool          // the report has left before reporting stops
		answer  time.Duration // when the workspace answers, after the stop
		disable bool          // stop by turning the adapter off, not Detach
		took    time.Duration
		want    []string
	}{
		{"detach, queued", false, 0, false, 0, []string{"dropped working", "release"}},
		{"detach, sent, answered in 300 ms", true, 300 * time.Millisecond, false, 300 * time.Millisecond, []string{"sent working", "answered working", "release"}},
		{"disable, queued", false, 0, true, 0, []string{"dropped working", "release"}},
		{"disable, sent, answered in 300 ms", true, 300 * time.Millisecond, true, 300 * time.Millisecond, []string{"sent working", "answered working", "release"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, _, a, log := attachedQueue(t)
				if tt.sent {
					close(a.queue)
				}
				synctest.Wait() // the report is queued, or sent
				go func() {
					time.Sleep(tt.answer)
					close(a.answer)
				}()
				start := time.Now()
				var err error
				if tt.disable {
					applySettings(t, r, `{"q": {"enabled": false}}`)
				} else {
					err = r.Detach(context.Background())
				}
				if err != nil {
					t.Errorf("stop: %v", err)
				}
				if took := time.Since(start); took != tt.took {
					t.Errorf("stopping took %v, want %v", took, tt.took)
				}
				if diff := cmp.Diff(log.all(), tt.want); diff != "" {
					t.Errorf("events (-got +want):\n%s", diff)
				}
				a.mu.Lock()
				defer a.mu.Unlock()
				if a.bare != 0 {
					t.Errorf("%d Report ctxs carried no withdrawal signal", a.bare)
				}
				synctest.Wait()
			})
		})
	}
}

// A queued report withdrawn returns ErrWithdrawn: that is not a failed
// delivery to retry.
func TestWithdrawnReportIsNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _, a, _ := attachedQueue(t)
		synctest.Wait()
		if err := r.Detach(context.Background()); err != nil {
			t.Errorf("Detach: %v", err)
		}
		time.Sleep(time.Minute)
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.reports != 2 {
			t.Errorf("Report called %d times, want 2 (the withdrawn one is not retried)", a.reports)
		}
	})
}
