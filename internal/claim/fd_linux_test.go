package claim

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestClaimsCloseTheirFiles: the pane file and the call lock's file stay
// open while a claim of the pane is open (one open per process, not per
// call), and are closed when the last one is closed, including after a
// take-over put a fresh pane file in place. goleak does not see
// descriptors; this counts them.
func TestClaimsCloseTheirFiles(t *testing.T) {
	tests := []struct {
		name     string
		takeOver bool
	}{
		{name: "report and release"},
		{name: "after a take-over", takeOver: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			var stuck *os.File
			if tt.takeOver {
				path := plant(t, dir, k, 1000, false, time.Time{})
				stuck = holdLock(t, path)
			}
			before := openFDs(t)
			older := New(k, Options{Dir: dir, OnFree: func() {}})
			newer := New(k, Options{Dir: dir})
			do(t, newer, Report)
			opened := openFDs(t)
			if opened != before+2 {
				t.Errorf("%d descriptors open with a claim, want %d (the pane file and the call lock's)", opened, before+2)
			}
			do(t, newer, Report)
			if got := openFDs(t); got != opened {
				t.Errorf("%d descriptors open after a second call, want %d", got, opened)
			}
			do(t, newer, Release)
			newer.Close()
			if got := openFDs(t); got != opened {
				t.Errorf("%d descriptors open with one claim left, want %d", got, opened)
			}
			older.Close()
			if got := openFDs(t); got != before {
				t.Errorf("%d descriptors open after every claim closed, want %d", got, before)
			}
			if stuck != nil && !replaced(stuck) {
				t.Error("the stuck file was not taken over")
			}
		})
	}
}

// TestMovingToATakenOverFileClosesTheOld: a process that had the pane file
// open when another took it over, while the stopped holder keeps the old
// file's lock, closes the old file as it moves to the fresh one (one pane
// file open, not two), and closes the fresh one with its last claim.
func TestMovingToATakenOverFileClosesTheOld(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	other := New(k, Options{Dir: dir + "/."})
	do(t, other, Report)
	holdLock(t, filepath.Join(dir, FileName(k))) // stopped for the whole test
	takeOverStuck(t, k, dir)
	opened := openFDs(t)
	do(t, other, Report)
	if got := openFDs(t); got != opened {
		t.Errorf("%d descriptors open after the move to the fresh file, want %d", got, opened)
	}
	other.Close()
	if got, want := openFDs(t), opened-2; got != want {
		t.Errorf("%d descriptors open after the moved claim closed, want %d", got, want)
	}
}

// TestOvertakenCallClosesTheOldFile: a call that finds, after writing its
// number, that another process took its pane file over while it held
// the lock (stopped, or slow, there) sends nothing and moves to the file
// put in place: one pane file open, not two, and none once its claim is
// closed.
func TestOvertakenCallClosesTheOldFile(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	before := openFDs(t)
	c := New(k, Options{Dir: dir})
	do(t, c, Report)
	opened := openFDs(t)
	path := filepath.Join(dir, FileName(k))
	now := time.Now()
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: now.Add(time.Second),
		Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli()),
		OnLocked: func(stage string) {
			if stage != "read" {
				return
			}
			// Another process takes the file over meanwhile.
			old, err := openNoFollow(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer old.Close()
			nf, err := takeOver(path, old)
			if err != nil {
				t.Error(err)
				return
			}
			nf.Close()
		}})
	if err != nil {
		t.Fatal(err)
	}
	call.End(call.Send)
	if call.Send {
		t.Error("the overtaken call was let send")
	}
	if got := openFDs(t); got != opened {
		t.Errorf("%d descriptors open after the overtaken call, want %d", got, opened)
	}
	c.Close()
	if got := openFDs(t); got != before {
		t.Errorf("%d descriptors open after the claim closed, want %d", got, before)
	}
}
