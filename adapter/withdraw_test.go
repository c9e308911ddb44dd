package adapter

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// TestAfterWithdraw: f runs once, in its own goroutine, when the report is
// withdrawn (at once if it already was), never when stop came first or the
// context carries no withdrawal; stop says whether it kept f from running.
func TestAfterWithdraw(t *testing.T) {
	for _, tc := range []struct {
		name        string
		carries     bool // ctx carries a withdrawal signal
		before      bool // withdrawn before AfterWithdraw
		stopFirst   bool // stop called before the withdrawal
		wantRun     bool
		wantStopped bool // the first stop's result
	}{
		{"withdrawn_later", true, false, false, true, false},
		{"withdrawn_before", true, true, false, true, false},
		{"stopped_first", true, false, true, false, true},
		{"no_signal", false, false, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, withdraw := context.Background(), func() {}
			if tc.carries {
				ctx, withdraw = WithWithdraw(ctx)
			}
			if tc.before {
				withdraw()
			}
			ran := make(chan struct{}, 2)
			stop := AfterWithdraw(ctx, func() { ran <- struct{}{} })
			var stopped bool
			if tc.stopFirst {
				stopped = stop()
			}
			withdraw()
			withdraw()
			if tc.wantRun {
				<-ran // a missing run hangs here, and the test times out
			}
			if !tc.stopFirst {
				stopped = stop()
			}
			if stopped != tc.wantStopped {
				t.Errorf("stop() = %v, want %v", stopped, tc.wantStopped)
			}
			if stop() {
				t.Error("a second stop() = true, want false")
			}
			select {
			case <-ran:
				t.Error("f ran more often than once, or ran after stop")
			default:
			}
		})
	}
}

// TestAfterWithdrawConcurrent: functions registered and stopped from many
// goroutines while the withdrawal comes each run exactly when their stop
// returns false (go test -race).
func TestAfterWithdrawConcurrent(t *testing.T) {
	for range 50 {
		ctx, withdraw := WithWithdraw(context.Background())
		const n = 16
		var runs [n]atomic.Int32
		var stoppedBy [n]bool
		var wg, done sync.WaitGroup
		for i := range n {
			wg.Add(1)
			done.Add(1)
			go func() {
				defer wg.Done()
				var once sync.Once
				stop := AfterWithdraw(ctx, func() { runs[i].Add(1); once.Do(done.Done) })
				if i%2 == 0 {
					if stoppedBy[i] = stop(); stoppedBy[i] {
						once.Do(done.Done)
					}
				}
			}()
		}
		withdraw()
		wg.Wait()
		done.Wait()
		for i := range n {
			want := int32(1)
			if stoppedBy[i] {
				want = 0
			}
			if got := runs[i].Load(); got != want {
				t.Fatalf("f %d ran %d times, want %d (stopped: %v)", i, got, want, stoppedBy[i])
			}
		}
	}
}
