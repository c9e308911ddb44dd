package adaptertest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/session"
)

var (
	rWorking = adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}
	rBlocked = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForInput}
	rIdle    = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent}
)

func TestRecorderRecords(t *testing.T) {
	ctx := t.Context()
	var r Recorder // the zero value is ready
	if _, ok := r.Last(); ok {
		t.Error("Last on an empty Recorder returned true")
	}
	r.SetSession(session.Identity{ID: "s1", Path: "/s/1"})
	for _, rep := range []adapter.Report{rWorking, rBlocked} {
		if err := r.Report(ctx, rep); err != nil {
			t.Fatalf("Report(%v) = %v", rep, err)
		}
	}
	boom := errors.New("boom")
	r.SetErr(boom)
	if err := r.Report(ctx, rIdle); err != boom {
		t.Errorf("Report with SetErr = %v; want %v as is", err, boom)
	}
	r.SetErr(nil)
	if err := r.Report(ctx, rIdle); err != nil {
		t.Errorf("Report after SetErr(nil) = %v; want nil", err)
	}
	if err := r.Release(ctx); err != nil {
		t.Errorf("Release = %v", err)
	}

	if diff := cmp.Diff(r.Calls(), []adapter.Report{rWorking, rBlocked, rIdle, rIdle}); diff != "" {
		t.Errorf("Calls (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(r.Reports(), []adapter.Report{rWorking, rBlocked, rIdle}); diff != "" {
		t.Errorf("Reports (-got +want):\n%s", diff)
	}
	if last, ok := r.Last(); !ok || last != rIdle {
		t.Errorf("Last = %v, %v; want %v, true", last, ok, rIdle)
	}
	if got := r.Released(); got != 1 {
		t.Errorf("Released = %d; want 1", got)
	}
	if diff := cmp.Diff(r.Session(), session.Identity{ID: "s1", Path: "/s/1"}); diff != "" {
		t.Errorf("Session (-got +want):\n%s", diff)
	}
	wantDetails := map[string]string{"calls": "4", "reports": "3", "released": "1", "closed": "false", "session": "s1"}
	if diff := cmp.Diff(r.Details(), wantDetails); diff != "" {
		t.Errorf("Details (-got +want):\n%s", diff)
	}

	// The copies are copies.
	r.Reports()[0] = rIdle
	if r.Reports()[0] != rWorking {
		t.Error("Reports returned the Recorder's own slice")
	}

	if err := r.Close(ctx); err != nil {
		t.Errorf("Close = %v", err)
	}
	if !r.Closed() {
		t.Error("Closed = false after Close")
	}
	if err := r.Report(ctx, rWorking); !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Report after Close = %v; want ErrClosed", err)
	}
	if err := r.Release(ctx); !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Release after Close = %v; want ErrClosed", err)
	}
}

func TestRecorderCancelledContext(t *testing.T) {
	r := NewRecorder()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := r.Report(ctx, rWorking); !errors.Is(err, context.Canceled) {
		t.Errorf("Report = %v; want context.Canceled", err)
	}
	if err := r.Release(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Release = %v; want context.Canceled", err)
	}
	if len(r.Reports()) != 0 || r.Released() != 0 {
		t.Errorf("a cancelled call was counted: reports %v, released %d", r.Reports(), r.Released())
	}
}

func TestRecorderBlock(t *testing.T) {
	tests := []struct {
		name    string
		release func(r *Recorder, cancel context.CancelFunc)
		wantErr error // nil: the report is delivered
	}{
		{"unblock", func(r *Recorder, _ context.CancelFunc) { r.Unblock() }, nil},
		{"context done", func(_ *Recorder, cancel context.CancelFunc) { cancel() }, context.Canceled},
		{"close", func(r *Recorder, _ context.CancelFunc) { _ = r.Close(context.Background()) }, adapter.ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRecorder()
			r.Block()
			r.Block() // idempotent
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- r.Report(ctx, rWorking) }()
			if err := r.WaitCalls(t.Context(), func(c []adapter.Report) bool { return len(c) == 1 }); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-errc:
				t.Fatalf("Report returned %v while blocked", err)
			default:
			}
			tt.release(r, cancel)
			err := <-errc
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Report = %v; want nil", err)
				}
				if diff := cmp.Diff(r.Reports(), []adapter.Report{rWorking}); diff != "" {
					t.Errorf("Reports (-got +want):\n%s", diff)
				}
				r.Unblock() // idempotent
				if err := r.Report(t.Context(), rIdle); err != nil {
					t.Errorf("Report after Unblock = %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Report = %v; want %v", err, tt.wantErr)
			}
			if got := r.Reports(); len(got) != 0 {
				t.Errorf("Reports = %v; want none", got)
			}
		})
	}
}

func TestRecorderWait(t *testing.T) {
	r := NewRecorder()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		for _, rep := range []adapter.Report{rWorking, rBlocked, rIdle} {
			_ = r.Report(t.Context(), rep)
		}
	})
	err := r.Wait(t.Context(), func(got []adapter.Report) bool {
		return len(got) > 0 && got[len(got)-1] == rIdle
	})
	if err != nil {
		t.Fatalf("Wait = %v", err)
	}
	if diff := cmp.Diff(r.Reports(), []adapter.Report{rWorking, rBlocked, rIdle}); diff != "" {
		t.Errorf("Reports (-got +want):\n%s", diff)
	}
}

func TestRecorderWaitContextDone(t *testing.T) {
	r := NewRecorder()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	err := r.Wait(ctx, func([]adapter.Report) bool { return false })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait = %v; want context.DeadlineExceeded", err)
	}
}

func TestDriver(t *testing.T) {
	rec := NewRecorder()
	notHere := errors.New("not in a test workspace")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name         string
		driver       Driver
		ctx          context.Context
		wantDefault  bool
		wantInactive bool
		wantErr      []error // every one must be wrapped by Open's error; none: Open succeeds
	}{
		{"NewDriver", *NewDriver(rec), t.Context(), true, false, nil},
		{"off by default", Driver{Recorder: rec}, t.Context(), false, false, nil},
		{"inactive", Driver{Recorder: rec, Inactive: notHere}, t.Context(), false, true, []error{adapter.ErrInactive, notHere}},
		{"no recorder", Driver{}, t.Context(), false, false, []error{errNoRecorder}},
		{"cancelled", *NewDriver(rec), cancelled, true, false, []error{context.Canceled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := optional.Settings(tt.driver); got != tt.wantDefault {
				t.Errorf("enabled by default = %v; want %v", got, tt.wantDefault)
			}
			err := tt.driver.Check(adapter.Params{})
			if (err != nil) != tt.wantInactive || (err != nil && !errors.Is(err, adapter.ErrInactive)) {
				t.Errorf("Check = %v; want an error wrapping ErrInactive only when inactive", err)
			}
			a, err := tt.driver.Open(tt.ctx, adapter.Params{Name: "recorder"})
			if len(tt.wantErr) == 0 {
				if err != nil || a != adapter.Adapter(rec) {
					t.Fatalf("Open = %v, %v; want the recorder, nil", a, err)
				}
				return
			}
			if a != nil {
				t.Errorf("Open returned an adapter with an error")
			}
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("Open error %v does not wrap %v", err, want)
				}
			}
		})
	}
}
