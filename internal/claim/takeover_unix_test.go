//go:build unix

package claim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/filelock"
)

// holdLock opens path as a process of its own would and takes the pane
// file's lock on it, as a process stopped in the moment it holds it does.
func holdLock(t *testing.T, path string) *os.File {
	t.Helper()
	f := holdOpen(t, path)
	if ok, err := filelock.TryLockFile(f); !ok || err != nil {
		t.Fatalf("lock %s: %v %v", path, ok, err)
	}
	return f
}

// TestTakesOverAStuckPaneFileLock: a process stopped while it holds the
// pane file's lock (here, another open file of the test holding it) does
// not keep a call of this process out past its wait. The call puts a fresh
// pane file in place, gets a number above what the stopped process had
// written, and the stopped process's file is no longer the pane file (what
// it finds when it resumes). The fresh file is this user's 0600 regular
// file, and nothing of the take-over is left in the directory.
func TestTakesOverAStuckPaneFileLock(t *testing.T) {
	tests := []struct {
		name string
		// stoppedMark is what the stopped process wrote before it
		// stopped, 0 for nothing: stopped between its read and its write.
		stoppedMark uint64
	}{
		{name: "stopped before its write"},
		{name: "stopped after its write", stoppedMark: uint64(time.Now().UnixMilli()) + 50_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			path := plant(t, dir, k, 1000, false, time.Time{})
			stopped := holdLock(t, path)
			if tt.stoppedMark != 0 {
				other := token{Process: 0xfeed, PID: os.Getppid(), Gen: 1}
				r := record{seq: tt.stoppedMark, holder: other, busy: other, until: uint64(time.Now().Add(time.Hour).UnixMilli())}
				var b [recordLen]byte
				r.marshal(&b)
				if _, err := stopped.WriteAt(b[:], 0); err != nil {
					t.Fatal(err)
				}
			}
			c := New(k, Options{Dir: dir})
			defer c.Close()
			took := false
			now := time.Now()
			call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report,
				Wait: now.Add(300 * time.Millisecond), Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli()),
				OnTakeOver: func() { took = true }})
			if err != nil {
				t.Fatalf("Begin while a stopped process holds the pane file's lock: %v, want the file taken over", err)
			}
			seq, _, err := call.Seq()
			call.End(true)
			if err != nil || !call.Send || !took {
				t.Fatalf("Send %v, took over %v, Seq error %v; want sent after a take-over", call.Send, took, err)
			}
			if floor := max(uint64(1000), tt.stoppedMark); seq <= floor {
				t.Errorf("seq %d, not above the stopped process's mark %d", seq, floor)
			}
			if !replaced(stopped) {
				t.Error("the stopped process's file is still the pane file")
			}
			if got := readRecord(t, path); got.seq != seq || got.holder != c.holderToken() {
				t.Errorf("pane file after the take-over: %v, want seq %d held by %v", got, seq, c.holderToken())
			}
			fi, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Errorf("fresh pane file mode %v, want a regular 0600 file", fi.Mode())
			}
			names := dirNames(t, dir)
			want := []string{FileName(k), callFileName(k)}
			slices.Sort(want)
			if diff := cmp.Diff(names, want); diff != "" {
				t.Errorf("state directory after the take-over (-got +want):\n%s", diff)
			}

			// A second call uses the fresh file: no take-over again.
			took = false
			do(t, c, Report)
			if took {
				t.Error("a second call took the file over again")
			}
		})
	}
}

// TestOneTakeOverOfAFile: two processes whose waits for the same stuck
// file end at the same moment both try to take it over; one does, the
// other gets errTakenOver (and waits for the lock of the file the first
// put in place), so that there is one pane file, and one number taken
// above the stopped process's, at a time.
func TestOneTakeOverOfAFile(t *testing.T) {
	for i := range 50 {
		dir := filepath.Join(t.TempDir(), "state")
		k := newKey(t)
		path := plant(t, dir, k, 1000, false, time.Time{})
		holdLock(t, path)
		var opened [2]*os.File
		for j := range opened {
			opened[j] = holdOpen(t, path)
		}
		var wg sync.WaitGroup
		var errs [2]error
		var files [2]*os.File
		start := make(chan struct{})
		for j := range opened {
			wg.Go(func() {
				<-start
				files[j], errs[j] = takeOver(path, opened[j])
			})
		}
		close(start)
		wg.Wait()
		won := 0
		for j := range errs {
			switch errs[j] {
			case nil:
				won++
				files[j].Close()
			case errTakenOver:
			default:
				t.Fatalf("round %d: takeOver: %v", i, errs[j])
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d take-overs of one file won (errors %v), want 1", i, won, errs)
		}
	}
}

// holdOpen opens path without its lock.
func holdOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := openNoFollow(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestReleaseTakesOverHalfwayThroughItsBudget: a release, whose wait and
// call share one budget, takes a stuck pane file over halfway through it,
// so that the release itself still has the other half (at its wait it
// would have none); it is sent.
func TestReleaseTakesOverHalfwayThroughItsBudget(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	c := New(k, Options{Dir: dir})
	defer c.Close()
	do(t, c, Report)
	stopped := holdLock(t, filepath.Join(dir, FileName(k)))
	took, early := false, false
	now := time.Now()
	until := now.Add(2 * time.Second)
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Release, Wait: until, Until: until,
		Seq: true, ClockMs: uint64(now.UnixMilli()), OnTakeOver: func() { took, early = true, time.Now().Before(until) }})
	if err != nil {
		t.Fatalf("release while a stopped process holds the pane file's lock: %v", err)
	}
	call.End(true)
	if !call.Send || !took {
		t.Fatalf("Send %v, took over %v; want the release sent after a take-over", call.Send, took)
	}
	if !early {
		t.Error("the release took the file over at the end of its budget, not halfway")
	}
	if !replaced(stopped) {
		t.Error("the stopped process's file is still the pane file")
	}
}

// takeOverStuck makes one report of a new claim of k in dir, whose pane
// file's lock a stopped process holds, and returns its number: the claim
// takes the file over. The claim is closed at cleanup.
func takeOverStuck(t *testing.T, k Key, dir string) (seq uint64) {
	t.Helper()
	c := New(k, Options{Dir: dir})
	t.Cleanup(c.Close)
	took := false
	now := time.Now()
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: now.Add(300 * time.Millisecond),
		Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli()), OnTakeOver: func() { took = true }})
	if err != nil || !took {
		t.Fatalf("Begin: %v (took over %v), want a take-over", err, took)
	}
	seq, _, _ = call.Seq()
	call.End(true)
	return seq
}

// TestOthersMoveToTheFreshFile: a process that had the pane file open
// when another took it over (here a second lease on the same directory,
// named differently) makes its next call on the fresh file, numbered
// above the take-over's call: it finds the old file marked once the
// stopped process resumes and lets the old lock go, and finds it replaced
// at once while the stopped process keeps that lock, rather than waiting
// for it to its wait (here an hour: the context's ten seconds end the
// test if it waits).
func TestOthersMoveToTheFreshFile(t *testing.T) {
	tests := []struct {
		name    string
		resumes bool // the stopped process lets the old file's lock go
	}{
		{name: "the stopped process resumes", resumes: true},
		{name: "the stopped process stays stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			other := New(k, Options{Dir: dir + "/."})
			defer other.Close()
			do(t, other, Report)
			path := filepath.Join(dir, FileName(k))
			stopped := holdLock(t, path)
			seq := takeOverStuck(t, k, dir)
			if tt.resumes {
				filelock.UnlockFile(stopped)
			}

			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			now := time.Now()
			next, err := other.Begin(ctx, context.Background(), BeginOptions{Op: Report, Wait: now.Add(time.Hour),
				Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli())})
			if err != nil {
				t.Fatalf("the other's call after the take-over: %v, want it made on the fresh file", err)
			}
			otherSeq, _, err := next.Seq()
			next.End(true)
			if err != nil || !next.Send {
				t.Fatalf("the other's call: Send %v, %v", next.Send, err)
			}
			if otherSeq <= seq {
				t.Errorf("the other's call has seq %d, not above the take-over's %d", otherSeq, seq)
			}
			if got := readRecord(t, path); got.seq != otherSeq {
				t.Errorf("pane file mark %d, want the other's %d: it wrote elsewhere", got.seq, otherSeq)
			}
			other.l.mu.Lock()
			f := other.l.file
			other.l.mu.Unlock()
			if replaced(f) {
				t.Error("the other still has the old file open as its pane file")
			}
		})
	}
}

// TestStaleTakeOverNamesAreCleared: a process that was stopped (SIGSTOP)
// or died in the middle of a take-over, after linking its fresh file
// under the take-over name and before renaming it over the pane file,
// keeps no one else from taking the file over once its names are older
// than staleTake; the names, and fresh files of takers that died before
// linking, are removed, and the stopped taker's late rename finds nothing
// to rename. Names younger than that are a running taker's and are left
// alone; names dated ahead of the clock by more than staleTake (the clock
// was set back) are not.
func TestStaleTakeOverNamesAreCleared(t *testing.T) {
	tests := []struct {
		name   string
		linked bool // the taker linked its fresh file under the take-over name
		age    time.Duration
		want   error // of takeOver
		// done: the taker renamed its fresh file into place and died
		// before removing its name (of the file it replaced, linking to
		// the pane file, whose time every call renews)
		done bool
	}{
		{name: "taker stopped between its link and its rename", linked: true, age: time.Hour},
		{name: "taker died before its link", age: time.Hour},
		{name: "a running taker's names", linked: true, want: errTakenOver},
		// The system clock stepped back an hour since the taker died: its
		// names, dated ahead of the clock, would keep the pane for that
		// hour.
		{name: "names dated ahead of the clock", linked: true, age: -time.Hour},
		{name: "taker died after its rename", done: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			path := plant(t, dir, k, 1000, false, time.Time{})
			holdLock(t, path)
			old := holdOpen(t, path)
			var st syscall.Stat_t
			if err := fstat(old, &st); err != nil {
				t.Fatal(err)
			}
			// The other taker's fresh file, and its take-over name.
			left := path + ".00000000deadbeef.new"
			if tt.done {
				left = "" // renamed into place
				if err := os.Link(path, path+".take-1-2"); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(left, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.linked {
				if err := os.Link(left, takeName(path, &st)); err != nil {
					t.Fatal(err)
				}
			}
			if then := time.Now().Add(-tt.age); left != "" {
				if err := os.Chtimes(left, then, then); err != nil {
					t.Fatal(err)
				}
			}
			nf, err := takeOver(path, old)
			if err != tt.want {
				t.Fatalf("takeOver = %v, want %v", err, tt.want)
			}
			if err != nil {
				if _, err := os.Lstat(takeName(path, &st)); err != nil {
					t.Errorf("the running taker's name: %v, want it left", err)
				}
				return
			}
			defer nf.Close()
			if !replaced(old) {
				t.Error("the stuck file is still the pane file")
			}
			if err := os.Rename(left, path); left != "" && err == nil {
				t.Error("the stopped taker's late rename replaced the fresh pane file")
			}
			names := dirNames(t, dir)
			if diff := cmp.Diff(names, []string{FileName(k)}); diff != "" {
				t.Errorf("state directory after the take-over (-got +want):\n%s", diff)
			}
		})
	}
}

// dirNames returns the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestLaterNumberOfACallTakenOverIsRefused: a call in flight that takes
// several numbers, whose pane file another process took over (a third,
// stopped, keeps the old file's lock), gets ErrOvertaken for its next
// number rather than one taken from its own memory beside the fresh
// file's: two processes would number from two files.
func TestLaterNumberOfACallTakenOverIsRefused(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	other := New(k, Options{Dir: dir + "/."})
	defer other.Close()
	inFlight := begin(t, other, Report)
	if _, _, err := inFlight.Seq(); err != nil || !inFlight.Send {
		t.Fatalf("the other's first number: Send %v, %v", inFlight.Send, err)
	}
	path := filepath.Join(dir, FileName(k))
	holdLock(t, path) // stopped for the whole test
	seq := takeOverStuck(t, k, dir)

	got, _, err := inFlight.Seq()
	inFlight.End(true)
	if err != ErrOvertaken {
		t.Errorf("the overtaken call's next number: %d, %v (the take-over's is %d); want ErrOvertaken", got, err, seq)
	}
}

// TestSlowTakerWhoseNamesWereClearedTakesNothing: a taker that is running
// but slow (a loaded machine) between its mark and its rename, for longer
// than staleTake, has its names and its mark cleared by a process that
// finds the mark, which makes its call on the file; the slow taker's
// rename then finds nothing to rename, and the pane file keeps that
// call's number, with no mark.
func TestSlowTakerWhoseNamesWereClearedTakesNothing(t *testing.T) {
	for _, pauseAt := range []string{"marked", "copied"} {
		t.Run("slow after it "+pauseAt, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			other := New(k, Options{Dir: dir + "/."}) // a process with the file open
			defer other.Close()
			do(t, other, Report)
			path := filepath.Join(dir, FileName(k))
			old := holdOpen(t, path)
			var st syscall.Stat_t
			if err := fstat(old, &st); err != nil {
				t.Fatal(err)
			}
			paused, resume := make(chan struct{}), make(chan struct{})
			takeOverStep = func(s string) {
				if s == pauseAt {
					close(paused)
					<-resume
				}
			}
			defer func() { takeOverStep = nil }()
			done := make(chan error, 1)
			go func() {
				nf, err := takeOver(path, old)
				if nf != nil {
					nf.Close()
				}
				done <- err
			}()
			<-paused
			// The taker has been slow for an hour: its names are as old.
			then := time.Now().Add(-time.Hour)
			if err := os.Chtimes(takeName(path, &st), then, then); err != nil {
				t.Fatal(err)
			}
			call := beginWaiting(t, other, Report)
			seq, _, err := call.Seq()
			call.End(call.Send)
			if err != nil || !call.Send {
				t.Fatalf("call on the file marked by the slow taker: Send %v (by %q), %v; want it made", call.Send, call.By, err)
			}
			close(resume)
			if err := <-done; err == nil {
				t.Error("the slow taker's take-over succeeded after its names were cleared")
			}
			var cur syscall.Stat_t
			if err := syscall.Lstat(path, &cur); err != nil || cur.Ino != st.Ino {
				t.Errorf("the pane file is inode %d (%v), want the old %d: the slow taker replaced it", cur.Ino, err, st.Ino)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if replacedRecord(b) {
				t.Error("the pane file is marked taken over after the slow taker gave up")
			}
			if got := readRecord(t, path); got.seq != seq {
				t.Errorf("pane file mark %d, want the call's %d", got.seq, seq)
			}
			want := []string{callFileName(k), FileName(k)}
			if diff := cmp.Diff(dirNames(t, dir), want); diff != "" {
				t.Errorf("state directory after the slow taker gave up (-got +want):\n%s", diff)
			}
		})
	}
}

// TestTwoProcessesTakeOverAtOnce: two processes whose calls find the same
// stuck pane file at the same moment each send with a number of its own,
// above the stopped process's and apart from the other's (one takes the
// file over, the other waits a moment for the lock of the file put in
// place), or give up with ErrBusy; never one number twice.
func TestTwoProcessesTakeOverAtOnce(t *testing.T) {
	for i := range 10 {
		k, dir := newKey(t), filepath.Join(t.TempDir(), "state")
		mark := uint64(time.Now().Add(time.Hour).UnixMilli())
		path := plant(t, dir, k, mark, false, time.Time{})
		holdLock(t, path) // stopped for the whole round
		claims := [2]*Claim{New(k, Options{Dir: dir}), New(k, Options{Dir: dir + "/."})}
		var seqs [2]uint64
		var errs, fileErrs [2]error
		var wg sync.WaitGroup
		start := make(chan struct{})
		for j, c := range claims {
			defer c.Close()
			wg.Go(func() {
				<-start
				now := time.Now()
				call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report,
					Wait: now.Add(300 * time.Millisecond), Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli())})
				if err != nil {
					errs[j] = err
					return
				}
				defer call.End(call.Send)
				fileErrs[j] = call.FileErr
				if !call.Send {
					errs[j] = fmt.Errorf("refused, by %q", call.By)
					return
				}
				seqs[j], _, errs[j] = call.Seq()
			})
		}
		close(start)
		wg.Wait()
		var sent []uint64
		for j := range errs {
			switch {
			case errs[j] == nil:
				sent = append(sent, seqs[j])
			case !errors.Is(errs[j], ErrBusy):
				t.Errorf("round %d: process %d: %v, want a number or ErrBusy", i, j, errs[j])
			}
		}
		if len(sent) == 0 {
			t.Errorf("round %d: neither process sent (%v)", i, errs)
		}
		if len(sent) == 2 && sent[0] == sent[1] {
			t.Errorf("round %d: both processes sent number %d", i, sent[0])
		}
		for j := range errs {
			if errs[j] == nil && seqs[j] <= mark {
				t.Errorf("round %d: process %d: number %d, not above the stopped process's %d (pane file: %v)", i, j, seqs[j], mark, fileErrs[j])
			}
		}
	}
}

// takenOverBy takes the pane file at path over as another process does
// (see takeOver), through a file of its own, and writes into the fresh
// file the last number that process sent, mark, with its release (the pane
// is free); it lets the fresh file's lock go. With stopped, a
// process stopped in the moment it holds the old file's lock keeps it.
func takenOverBy(t *testing.T, path string, mark uint64, stopped bool) {
	t.Helper()
	old := holdOpen(t, path)
	if stopped {
		old = holdLock(t, path)
	}
	nf, err := takeOver(path, old)
	if err != nil {
		t.Fatalf("take-over by another process: %v", err)
	}
	t.Cleanup(func() { nf.Close() })
	var b [recordLen]byte
	(&record{seq: mark}).marshal(&b)
	if _, err := nf.WriteAt(b[:], 0); err != nil {
		t.Fatal(err)
	}
	filelock.UnlockFile(nf)
}

// TestCallAfterATakeOverItCannotFollowIsRefused: a process whose pane file
// another process took over, and which cannot open the file put in its
// place (here the directory was opened to the group since), does not make
// its call without the pane file: its number, from the clock and its own
// marks, may be at or below the number the taker sent (Herdr would ignore
// this report) or above it without being in the file (Herdr would ignore
// the taker's next one). Begin refuses the call with a ReopenError
// (ErrBusy: the adapter reports a timeout), and the call after it, once
// the file can be opened again, is numbered above the taker's. The taker's
// number is ahead of the clock, as it is when its own marks were.
func TestCallAfterATakeOverItCannotFollowIsRefused(t *testing.T) {
	tests := []struct {
		name    string
		stopped bool // a stopped process keeps the old file's lock
		// during: the file is taken over while the claim's own call holds
		// its lock (that call is refused as overtaken, stale_owner); the
		// call after it is the one that must not go without the file
		during bool
	}{
		{name: "old file marked, its lock free"},
		{name: "old file's lock kept by a stopped process", stopped: true},
		{name: "taken over during the claim's own call", during: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			c := New(k, Options{Dir: dir})
			defer c.Close()
			do(t, c, Report)
			path := filepath.Join(dir, FileName(k))
			mark := uint64(time.Now().Add(10 * time.Minute).UnixMilli())
			takeOver := func() {
				takenOverBy(t, path, mark, tt.stopped)
				if err := os.Chmod(dir, 0o750); err != nil {
					t.Fatal(err)
				}
			}
			if tt.during {
				now := time.Now()
				call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: now.Add(time.Second),
					Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli()),
					OnLocked: func(stage string) {
						if stage == "read" {
							takeOver()
						}
					}})
				if err != nil {
					t.Fatalf("the call overtaken: %v", err)
				}
				call.End(call.Send)
				if call.Send {
					t.Fatal("the call overtaken while it held the lock was sent")
				}
			} else {
				takeOver()
			}

			refusedAsReopen(t, c, path, mark, "call after the take-over")
			if err := os.Chmod(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			madeAbove(t, c, mark, "call once the file opens again")
		})
	}
}

// refusedAsReopen makes a report of c and fails the test unless Begin
// refuses it with a ReopenError (ErrBusy) naming path; what names the
// call, mark the taker's number, for the messages.
func refusedAsReopen(t *testing.T, c *Claim, path string, mark uint64, what string) {
	t.Helper()
	now := time.Now()
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: now.Add(time.Second),
		Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli())})
	if err == nil {
		seq, _, _ := call.Seq()
		call.End(call.Send)
		t.Fatalf("%s: Send %v, number %d (the taker's %d), pane file: %v; want it refused with ErrBusy",
			what, call.Send, seq, mark, call.FileErr)
	}
	var re *ReopenError
	if !errors.Is(err, ErrBusy) || !errors.As(err, &re) || re.Path != path {
		t.Fatalf("%s: %v, want a ReopenError (ErrBusy) naming %s", what, err, path)
	}
}

// madeAbove makes a report of c and fails the test unless it is made on
// the pane file, numbered above mark; it returns the call's number.
func madeAbove(t *testing.T, c *Claim, mark uint64, what string) uint64 {
	t.Helper()
	call := begin(t, c, Report)
	seq, _, err := call.Seq()
	call.End(call.Send)
	if err != nil || !call.Send || call.FileErr != nil {
		t.Fatalf("%s: Send %v, %v, pane file: %v; want it made on the pane file", what, call.Send, err, call.FileErr)
	}
	if seq <= mark {
		t.Errorf("%s: number %d, not above the taker's %d", what, seq, mark)
	}
	return seq
}

// TestReplacedFileStillLinkedIsNotThePaneFile: a file that a take-over
// replaced may keep a link: the take-over name of a taker that died after
// renaming that file into place (it names that file until the next
// take-over removes it), when the next taker dies (or stops) after its own
// rename and before it removes such leftovers. Its mark, found by a
// process that has it open, is not a dead taker's to clear: the path names
// another file, the one holding the taker's number, and the call goes
// there, numbered above it, rather than on the old file with its old mark.
func TestReplacedFileStillLinkedIsNotThePaneFile(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	c := New(k, Options{Dir: dir})
	defer c.Close()
	do(t, c, Report)
	path := filepath.Join(dir, FileName(k))
	// The first taker renamed this file into place and died before it
	// removed its name.
	if err := os.Link(path, path+".take-1-2"); err != nil {
		t.Fatal(err)
	}
	// The next taker marked it and renamed its fresh file over it, with
	// the number it sent, and died before it removed the leftovers.
	if _, err := holdOpen(t, path).WriteAt([]byte{tombstone}, int64(recordLen)); err != nil {
		t.Fatal(err)
	}
	mark := uint64(time.Now().Add(10 * time.Minute).UnixMilli())
	var b [recordLen]byte
	(&record{seq: mark}).marshal(&b)
	fresh := filepath.Join(dir, "fresh")
	if err := os.WriteFile(fresh, b[:], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(fresh, path); err != nil {
		t.Fatal(err)
	}

	seq := madeAbove(t, c, mark, "call after the take-over (not on the replaced file)")
	if got := readRecord(t, path); got.seq != seq {
		t.Errorf("pane file mark %d, want the call's %d", got.seq, seq)
	}
}

// TestTakeOverOfATakersFileIsWaitedFor: a process that took the pane file
// over has the fresh file open as its pane file; when another process is
// taking that one over in turn (its mark and its take-over name are there,
// a moment old), this process's call waits for it as every process does,
// rather than taking the mark for a dead taker's, clearing it and
// numbering its call in the file being replaced (where the taker's copy
// may not have its number). Here the taker never renames: the call gives
// up at its wait, and the mark stays.
func TestTakeOverOfATakersFileIsWaitedFor(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	path := plant(t, dir, k, 1000, false, time.Time{})
	stopped := holdLock(t, path)
	c := New(k, Options{Dir: dir})
	defer c.Close()
	now := time.Now()
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: now.Add(300 * time.Millisecond),
		Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli())})
	if err != nil || !call.Send {
		t.Fatalf("take-over: %v", err)
	}
	call.End(true)
	filelock.UnlockFile(stopped)

	// Another process is taking the fresh file over: it linked its own
	// fresh file under the take-over name and marked the pane file.
	f := holdOpen(t, path)
	var st syscall.Stat_t
	if err := fstat(f, &st); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(dir, FileName(k)+".0123456789abcdef.new")
	if err := os.WriteFile(next, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(next, takeName(path, &st)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{tombstone}, int64(recordLen)); err != nil {
		t.Fatal(err)
	}

	now = time.Now()
	call, err = c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: now.Add(50 * time.Millisecond),
		Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli())})
	if err == nil {
		call.End(call.Send)
		t.Fatalf("call while another process takes the file over: Send %v, want ErrBusy at its wait", call.Send)
	}
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("call while another process takes the file over: %v, want ErrBusy", err)
	}
	if !takenOver(f) {
		t.Error("the taker's mark was cleared")
	}
}

// TestLeftoversKeepARunningTakersName: a taker removes, after its rename,
// the take-over names of files the path no longer names. The path may
// change after it looked (it stops there, say): two more take-overs, the
// second one past its look at the path and before its rename. That one's
// name is not a leftover, and stays (the directory is listed before the
// path is looked at): otherwise a fourth process could take the same file
// over beside it, and both would number their calls from one copy.
func TestLeftoversKeepARunningTakersName(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	path := plant(t, dir, k, 1000, false, time.Time{})
	var next *os.File // the file put in place meanwhile, being taken over
	looked := false
	takeOverStep = func(s string) {
		if s != "leftovers-path" || looked {
			return
		}
		looked = true
		// Another process takes the pane file over meanwhile...
		nf, err := takeOver(path, holdOpen(t, path))
		if err != nil {
			t.Errorf("second take-over: %v", err)
			return
		}
		next = nf
		t.Cleanup(func() { nf.Close() })
		// ...and a third is taking that one over: its fresh file linked
		// under its take-over name, its look at the path done.
		var st syscall.Stat_t
		if err := fstat(nf, &st); err != nil {
			t.Error(err)
			return
		}
		fresh := path + ".0123456789abcdef.new"
		if err := os.WriteFile(fresh, nil, 0o600); err != nil {
			t.Error(err)
			return
		}
		if err := os.Link(fresh, takeName(path, &st)); err != nil {
			t.Error(err)
		}
	}
	defer func() { takeOverStep = nil }()
	nf, err := takeOver(path, holdOpen(t, path))
	if err != nil {
		t.Fatalf("first take-over: %v", err)
	}
	nf.Close()
	if next == nil {
		t.Fatal("the take-over did not look at the path before removing leftovers")
	}
	takeOverStep = nil
	again, err := takeOver(path, holdOpen(t, path))
	if err == nil {
		again.Close()
		t.Fatal("a fourth process took the pane file over beside the third")
	}
	if err != errTakenOver {
		t.Fatalf("fourth take-over: %v, want errTakenOver", err)
	}
}

// TestTornSecondReadKeepsTheCopiedMark: a taker reads the stopped
// process's record twice: once to copy it into the fresh file, once more
// after the rename (a number the stopped process wrote between its last
// look and the mark raises the mark). When that second read is torn (the
// process, resumed, writes its record in the same instant: that number is
// never sent, it finds the mark) the number is still above the mark the
// copy holds, not taken from the clock alone.
func TestTornSecondReadKeepsTheCopiedMark(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	mark := uint64(time.Now().Add(10 * time.Minute).UnixMilli())
	path := plant(t, dir, k, mark, false, time.Time{})
	stopped := holdLock(t, path)
	takeOverStep = func(s string) {
		if s == "renamed" {
			// A record torn by the resumed process's write.
			if _, err := stopped.WriteAt([]byte("c2 torn"), 0); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { takeOverStep = nil }()
	c := New(k, Options{Dir: dir})
	defer c.Close()
	took := false
	now := time.Now()
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: now.Add(300 * time.Millisecond),
		Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli()), OnTakeOver: func() { took = true }})
	if err != nil || !took {
		t.Fatalf("Begin: %v (took over %v), want a take-over", err, took)
	}
	seq, _, err := call.Seq()
	call.End(call.Send)
	if err != nil || !call.Send {
		t.Fatalf("call: Send %v, %v", call.Send, err)
	}
	if seq <= mark {
		t.Errorf("number %d, not above the copied mark %d (pane file: %v)", seq, mark, call.FileErr)
	}
}

// TestFollowedFileUnusableIsTriedAgainFromThePath: a process that found
// its pane file taken over opens the file put in its place, and may then
// fail to lock or read it (here its descriptor is closed under it, as a
// stand-in for any error of the lock or the read). That call is refused
// (ReopenError), and so is every later one until the pane file opens and
// reads again: the next call opens the path afresh, rather than going on
// the same descriptor and, finding it unusable too, making its call
// without the pane file, numbered from the clock below the taker's.
func TestFollowedFileUnusableIsTriedAgainFromThePath(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	c := New(k, Options{Dir: dir})
	defer c.Close()
	do(t, c, Report)
	path := filepath.Join(dir, FileName(k))
	mark := uint64(time.Now().Add(10 * time.Minute).UnixMilli())
	takenOverBy(t, path, mark, false)
	write := func(r record) {
		t.Helper()
		var b [recordLen]byte
		r.marshal(&b)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(b[:], 0); err != nil {
			t.Fatal(err)
		}
	}
	// The taker's next call is in flight: the claim, once it followed the
	// take-over, waits for it, and its descriptor fails meanwhile.
	other := token{Process: 0xfeed, PID: os.Getppid(), Gen: 1}
	write(record{seq: mark, holder: other, busy: other, until: uint64(time.Now().Add(time.Minute).UnixMilli())})
	failed := false
	now := time.Now()
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: now.Add(time.Second),
		Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli()),
		OnWaitFile: func() {
			if failed {
				return
			}
			failed = true
			c.l.mu.Lock()
			c.l.file.Close()
			c.l.mu.Unlock()
			write(record{seq: mark}) // the taker's call ended and it released
		}})
	if err == nil {
		call.End(call.Send)
		t.Fatalf("call whose followed pane file failed: Send %v, pane file: %v; want a ReopenError", call.Send, call.FileErr)
	}
	var re *ReopenError
	if !failed || !errors.As(err, &re) {
		t.Fatalf("call whose followed pane file failed (failed %v): %v, want a ReopenError", failed, err)
	}

	// While the path cannot be opened (the directory opened to the group),
	// the calls are refused the same way.
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	refusedAsReopen(t, c, path, mark, "call while the path cannot be opened")
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	madeAbove(t, c, mark, "next call, the path opened again")
}
