//go:build unix

package claim

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// noTakeOver makes the package behave, for the test, as it does where a
// pane file is not taken over (Windows: see file_other.go), through the
// takeOverFile seam.
func noTakeOver(t *testing.T) {
	t.Helper()
	prev := takeOverFile
	takeOverFile = func(string, *os.File) (*os.File, error) { return nil, errNoTakeOver }
	t.Cleanup(func() { takeOverFile = prev })
}

// TestStuckLockWithoutTakeOverEndsAtTheWait: where a pane file is not
// taken over (Windows), a call whose pane file's lock a stopped process
// keeps gives up at its wait (herdr.timeout; a release at its own) with a
// StuckError naming the file, which is ErrBusy, rather than waiting for
// the stopped process: the test's context, ten seconds, ends a call that
// waits on. Nothing is taken over.
func TestStuckLockWithoutTakeOverEndsAtTheWait(t *testing.T) {
	tests := []struct {
		name string
		op   Op
	}{
		{name: "report", op: Report},
		{name: "release", op: Release},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noTakeOver(t)
			k, dir := newKey(t), stateDir(t)
			c := New(k, Options{Dir: dir})
			defer c.Close()
			do(t, c, Report)
			path := filepath.Join(dir, FileName(k))
			stopped := holdLock(t, path)

			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			now := time.Now()
			opts := BeginOptions{Op: tt.op, Wait: now.Add(300 * time.Millisecond), Budget: time.Second,
				Seq: true, ClockMs: uint64(now.UnixMilli()), OnTakeOver: func() { t.Error("the file was taken over") }}
			if tt.op == Release {
				opts.Until = opts.Wait
			}
			call, err := c.Begin(ctx, context.Background(), opts)
			if err == nil {
				call.End(false)
				t.Fatalf("Begin while a stopped process keeps the lock: Send %v, want a StuckError", call.Send)
			}
			var se *StuckError
			if !errors.As(err, &se) || !errors.Is(err, ErrBusy) {
				t.Fatalf("Begin while a stopped process keeps the lock = %v, want a StuckError (ErrBusy)", err)
			}
			if se.Path != path {
				t.Errorf("StuckError names %q, want the pane file %q", se.Path, path)
			}
			if replaced(stopped) {
				t.Error("the stopped process's file was replaced")
			}
		})
	}
}

// TestLaterNumberWhileTheLockIsStuck: a call in flight that asks a later
// number while a process stopped in the moment it holds the pane file's
// lock keeps it (nobody took the file over yet) gets a StuckError by the
// call's deadline, with no number, on every system: a number taken from
// the process's memory is not in the pane file, so the process that takes
// the file over next copies a record without it, and may number its own
// call at or below it (the same millisecond, or a mark ahead of the
// clock); sent after the taker's, it would undo the fence, and the
// taker's, sent after it, would be ignored.
func TestLaterNumberWhileTheLockIsStuck(t *testing.T) {
	tests := []struct {
		name     string
		takeOver bool // the system takes pane files over (Unix)
	}{
		{name: "unix", takeOver: true},
		{name: "without take-over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.takeOver {
				noTakeOver(t)
			}
			k, dir := newKey(t), stateDir(t)
			c := New(k, Options{Dir: dir})
			defer c.Close()
			now := time.Now()
			call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: now.Add(time.Second),
				Budget: 200 * time.Millisecond, Seq: true, ClockMs: uint64(now.UnixMilli())})
			if err != nil {
				t.Fatal(err)
			}
			first, _, err := call.Seq()
			if err != nil || !call.Send {
				t.Fatalf("first number: Send %v, %v", call.Send, err)
			}
			path := filepath.Join(dir, FileName(k))
			holdLock(t, path)
			later, _, err := call.Seq()
			call.End(false)
			var se *StuckError
			if !errors.As(err, &se) || !errors.Is(err, ErrBusy) {
				t.Errorf("later number while the lock is stuck: %d, %v (first %d); want a StuckError, no number", later, err, first)
			}
			if got := readRecord(t, path); got.seq != first {
				t.Errorf("pane file mark %d, want the first number %d", got.seq, first)
			}
		})
	}
}

// TestUnreadablePaneFileTellsTheWatchNothing: a look of the OnFree watch
// whose read of the pane file fails tells nothing (known false). On
// Windows the read fails while another process holds the file's lock
// (LockFileEx keeps the locked range from other handles): for a moment at
// each of its calls, and for as long as a process stopped holding it
// stays stopped. Taken for an empty file, it read as a pane let go since
// the claim's last report, and made OnFree send a take-back. Here the
// read fails on a descriptor opened for writing only.
func TestUnreadablePaneFileTellsTheWatchNothing(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	c := New(k, Options{Dir: dir}) // no watch of its own, looking at once
	defer c.Close()
	if call := do(t, c, Report); !call.Send {
		t.Fatal("report not sent")
	}
	wo, err := os.OpenFile(filepath.Join(dir, FileName(k)), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.l.mu.Lock()
	f := c.l.file
	c.l.file = wo
	c.l.mu.Unlock()
	defer func() {
		c.l.mu.Lock()
		c.l.file = f
		c.l.mu.Unlock()
		wo.Close()
	}()
	if by, lost, known := c.heldBy(wo); known {
		t.Errorf("heldBy on an unreadable pane file = %q, lost %v, known; want nothing known", by, lost)
	}
}

// TestEndWaitsNoLongerThanTheCall: a delivered release whose End finds the
// pane file's lock held by a process that does not move waits for it no
// longer than the call's deadline (the release's budget), not a fixed
// second beyond it, and leaves the record as it was. Fake time
// (synctest): the lock is tried without blocking, and the waits between
// tries are sleeps.
func TestEndWaitsNoLongerThanTheCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, dir := newKey(t), stateDir(t)
		c := New(k, Options{Dir: dir})
		defer c.Close()
		do(t, c, Report)
		now := time.Now()
		until := now.Add(200 * time.Millisecond)
		call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Release, Wait: until, Until: until,
			Seq: true, ClockMs: uint64(now.UnixMilli())})
		if err != nil || !call.Send {
			t.Fatalf("release: Send %v, %v", call.Send, err)
		}
		path := filepath.Join(dir, FileName(k))
		before := readRecord(t, path)
		holdLock(t, path)
		call.End(true)
		if ended := time.Now(); ended.After(until) {
			t.Errorf("End returned %v after the release's deadline", ended.Sub(until))
		}
		if diff := cmp.Diff(readRecord(t, path), before, cmp.AllowUnexported(record{}, token{})); diff != "" {
			t.Errorf("pane file changed by an End that had no lock (-got +want):\n%s", diff)
		}
	})
}
