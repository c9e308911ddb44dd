package claim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/panestate/panestate/internal/filelock"
)

// newKey returns a key of its own for the test, so that tests do not share
// the process-wide table.
func newKey(t *testing.T) Key { return Key{Kind: "test", Server: "/srv", Pane: t.Name()} }

// stateDir returns a fresh pane-file directory, to be created 0700.
func stateDir(t *testing.T) string { return filepath.Join(t.TempDir(), "state") }

// begin is Begin with a second's budget and the real clock.
func begin(t *testing.T, c *Claim, op Op) *Call {
	t.Helper()
	now := time.Now()
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: op, Wait: now.Add(time.Second),
		Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli())})
	if err != nil {
		t.Fatalf("Begin(%s): %v", op, err)
	}
	return call
}

// do makes one call that the workspace takes when sent, and returns
// whether it was sent.
func do(t *testing.T, c *Claim, op Op) *Call {
	t.Helper()
	call := begin(t, c, op)
	if call.FileErr != nil {
		t.Errorf("FileErr: %v", call.FileErr)
	}
	call.End(call.Send)
	return call
}

func TestNewestClaimOwnsThePane(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	older := New(k, Options{Dir: dir})
	defer older.Close()
	if call := do(t, older, Report); !call.Send || !call.Claimed {
		t.Fatalf("first report: Send %v Claimed %v, want both", call.Send, call.Claimed)
	}
	newer := New(k, Options{Dir: dir})
	defer newer.Close()
	if call := do(t, newer, Report); !call.Send || !call.Claimed {
		t.Fatalf("newer report: Send %v Claimed %v, want both", call.Send, call.Claimed)
	}
	for _, op := range []Op{Report, Release} {
		if call := do(t, older, op); call.Send || call.By != byNewer {
			t.Errorf("older %s: Send %v By %q, want refused by %q", op, call.Send, call.By, byNewer)
		}
	}
	if got := older.Status(); got != Retired || !older.Stale() {
		t.Errorf("older: %s, stale %v; want retired", got, older.Stale())
	}
	if got := newer.Status(); got != statusHolder || newer.Stale() {
		t.Errorf("newer: %s, stale %v; want holder", got, newer.Stale())
	}
}

// TestOlderTakesThePaneBack: once the newer claim released the pane or was
// closed, the older one's OnFree fires and its next report is made, as a
// claim of its own.
func TestOlderTakesThePaneBack(t *testing.T) {
	tests := []struct {
		name   string
		letGo  func(t *testing.T, newer *Claim)
		status Status // the newer claim's, after
	}{
		{name: "newer released", letGo: func(t *testing.T, newer *Claim) { do(t, newer, Release) }, status: statusFree},
		{name: "newer closed", letGo: func(t *testing.T, newer *Claim) { newer.Close() }, status: statusClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			freed := make(chan struct{}, 1)
			older := New(k, Options{Dir: dir, OnFree: func() { freed <- struct{}{} }})
			defer older.Close()
			do(t, older, Report)
			newer := New(k, Options{Dir: dir})
			defer newer.Close()
			do(t, newer, Report)
			if call := do(t, older, Report); call.Send {
				t.Fatal("older report sent while the newer claim holds the pane")
			}
			tt.letGo(t, newer)
			<-freed
			if call := do(t, older, Report); !call.Send || !call.Claimed {
				t.Errorf("older report after the newer let go: Send %v Claimed %v, want both", call.Send, call.Claimed)
			}
			if got := older.Status(); got != statusHolder {
				t.Errorf("older: %s, want holder", got)
			}
			if got := newer.Status(); got != tt.status {
				t.Errorf("newer: %s, want %s", got, tt.status)
			}
		})
	}
}

// planted is another live process's record: the test binary's parent holds
// the pane and, when busy, is making a call that ends at until.
func plant(t *testing.T, dir string, k Key, seq uint64, busy bool, until time.Time) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	other := token{Process: 0xfeed, PID: os.Getppid(), Gen: 1}
	r := record{seq: seq, holder: other}
	if busy {
		r.busy, r.until = other, uint64(until.UnixMilli())
	}
	var b [recordLen]byte
	r.marshal(&b)
	path := filepath.Join(dir, FileName(k))
	if err := os.WriteFile(path, b[:], 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readRecord(t *testing.T, path string) record {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAnotherProcess: a claim whose first report finds another live
// process holding the pane takes it (the newest claim wins); a claim that
// had the pane and finds another process holding it is fenced, sends
// nothing, not even its release, and takes the pane back once the record
// is free.
func TestAnotherProcess(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	freed := make(chan struct{}, 1)
	c := New(k, Options{Dir: dir, OnFree: func() { freed <- struct{}{} }})
	defer c.Close()
	path := plant(t, dir, k, 5, false, time.Time{})
	if call := do(t, c, Report); !call.Send || !call.Claimed {
		t.Fatalf("first report over another live process: Send %v Claimed %v, want both", call.Send, call.Claimed)
	}
	if got := readRecord(t, path).holder; got != c.holderToken() {
		t.Fatalf("holder %v, want %v", got, c.holderToken())
	}
	plant(t, dir, k, 10, false, time.Time{}) // the other process claims again
	if call := do(t, c, Report); call.Send || call.By != byOtherProcess {
		t.Fatalf("report while fenced: Send %v By %q", call.Send, call.By)
	}
	if got := c.Status(); got != statusFenced {
		t.Errorf("status %s, want fenced", got)
	}
	// The other process releases: its record names nobody.
	r := readRecord(t, path)
	r.holder = token{}
	var b [recordLen]byte
	r.marshal(&b)
	if err := os.WriteFile(path, b[:], 0o600); err != nil {
		t.Fatal(err)
	}
	<-freed
	call := do(t, c, Report)
	if !call.Send || !call.Claimed {
		t.Errorf("report after the other released: Send %v Claimed %v, want both", call.Send, call.Claimed)
	}
	if got := readRecord(t, path); got.holder != c.holderToken() || got.seq <= 10 || inFlight(t, dir, k, got) {
		t.Errorf("record %v, want held by %v above 10 with no call in flight", got, c.holderToken())
	}
}

// inFlight reports whether r, read from k's pane file in dir, shows a call
// in flight: a busy call without the call lock, or one whose call lock is
// held.
func inFlight(t *testing.T, dir string, k Key, r record) bool {
	t.Helper()
	if r.busy.IsZero() || !r.locked {
		return !r.busy.IsZero()
	}
	f := holdCallLock(t, dir, k)
	if f == nil {
		return true
	}
	filelock.UnlockFile(f)
	return false
}

// holdCallLock takes k's call lock on a file of its own, as another
// process would, and returns the file, or nil when the lock is held. The
// lock goes with the file at the test's end.
func holdCallLock(t *testing.T, dir string, k Key) *os.File {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, callFileName(k)), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ok, err := filelock.TryLockFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return nil
	}
	return f
}

// TestCallLockTellsTheCallEnded: another process's call whose mark says it
// holds the call lock is in flight while the lock is held, and over once
// the lock is free, although the mark is still there (End leaves it). A
// call that takes over a holder of the call lock that does not move (a
// stopped process) makes its call without the lock and clears its own
// mark at End, so that the calls after it do not wait for the stopped one.
func TestCallLockTellsTheCallEnded(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	path := plant(t, dir, k, 1000, true, time.Now().Add(time.Hour))
	r := readRecord(t, path)
	r.locked = true
	var b [recordLen]byte
	r.marshal(&b)
	if err := os.WriteFile(path, b[:], 0o600); err != nil {
		t.Fatal(err)
	}
	stopped := holdCallLock(t, dir, k) // the other process, stopped in its call
	if stopped == nil {
		t.Fatal("the call lock is held before the test holds it")
	}
	c := New(k, Options{Dir: dir})
	defer c.Close()
	// The wait has passed already: a call in flight is taken over at once,
	// one that ended is not taken over at all.
	now := time.Now()
	opts := BeginOptions{Op: Report, Wait: now, Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli())}
	call, err := c.Begin(t.Context(), context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !call.Send || !call.Overtook || call.held {
		t.Errorf("while the lock is held: Send %v Overtook %v held %v, want sent, overtaking, without the lock", call.Send, call.Overtook, call.held)
	}
	call.End(true)
	if got := readRecord(t, path); !got.busy.IsZero() {
		t.Errorf("after a call without the lock: %v, want no call in flight", got)
	}
	call = do(t, c, Report)
	if call.Overtook {
		t.Error("the call after the take-over waited for the stopped process")
	}

	// The other process's call (a release: the record names no holder)
	// ends without writing the pane file: it lets the call lock go.
	plant(t, dir, k, 1000, true, time.Now().Add(time.Hour))
	r = readRecord(t, path)
	r.locked, r.holder = true, token{}
	r.marshal(&b)
	if err := os.WriteFile(path, b[:], 0o600); err != nil {
		t.Fatal(err)
	}
	filelock.UnlockFile(stopped)
	call, err = c.Begin(t.Context(), context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !call.Send || call.Overtook || !call.held {
		t.Errorf("once the lock is free: Send %v Overtook %v held %v, want sent with the lock, not overtaking", call.Send, call.Overtook, call.held)
	}
	call.End(true)
	if got := readRecord(t, path); !got.locked || got.busy != c.holderToken() || inFlight(t, dir, k, got) {
		t.Errorf("after a call with the lock: %v, want its mark left, with the lock free", got)
	}
}

// TestTakeBackYields: a take-back (a Yield call from OnFree) that finds
// another process's call in flight does not wait for it: it is refused at
// once, and OnFree comes again, at a later look, until the pane is free
// and the take-back goes out.
func TestTakeBackYields(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	type result struct{ sent, yielded bool }
	results := make(chan result, 100)
	var c *Claim
	c = New(k, Options{Dir: dir, OnFree: func() {
		ctx, cancel := context.WithCancel(t.Context())
		cancel() // a call that waited would end with ctx's error
		now := time.Now()
		call, err := c.Begin(ctx, context.Background(), BeginOptions{Op: Report, Wait: now.Add(time.Hour),
			Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli()), Yield: true})
		if err != nil {
			t.Errorf("take-back: %v, want no wait", err)
			results <- result{}
			return
		}
		call.End(call.Send)
		results <- result{call.Send, call.Yielded}
	}})
	defer c.Close()
	do(t, c, Report)
	// Another process took the pane and its release is in flight: the
	// record names no holder, and its call is marked.
	other := token{Process: 0xfeed, PID: os.Getppid(), Gen: 1}
	r := record{seq: 1_000_000_000_000_000, busy: other, until: uint64(time.Now().Add(time.Hour).UnixMilli())}
	path := filepath.Join(dir, FileName(k))
	writeRecord(t, path, r)
	if got := <-results; got.sent || !got.yielded {
		t.Fatalf("take-back during the other's call: sent %v yielded %v, want yielded", got.sent, got.yielded)
	}
	r.busy, r.until = token{}, 0 // the release ended
	writeRecord(t, path, r)
	for got := range results {
		if got.sent {
			break
		}
		if !got.yielded {
			t.Fatalf("take-back: sent %v yielded %v, want one or the other", got.sent, got.yielded)
		}
	}
	if got := readRecord(t, path).holder; got != c.holderToken() {
		t.Errorf("holder %v after the take-back, want %v", got, c.holderToken())
	}
}

// TestReleaseWaitsForOneCall: a release that finds another process's call
// in flight, which took the pane or is that process's release, waits for
// that call only: once it ends, the release is refused at once, although
// another call of that process is in flight by then.
func TestReleaseWaitsForOneCall(t *testing.T) {
	tests := []struct {
		name   string
		holder bool // the record names the other process as the holder
	}{
		{name: "the other took the pane", holder: true},
		{name: "the other is releasing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			c := New(k, Options{Dir: dir})
			defer c.Close()
			do(t, c, Report)
			path := filepath.Join(dir, FileName(k))
			first := token{Process: 0xfeed, PID: os.Getppid(), Gen: 1}
			r := record{seq: 1_000_000_000_000_000, busy: first, until: uint64(time.Now().Add(time.Hour).UnixMilli())}
			if tt.holder {
				r.holder = first
			}
			writeRecord(t, path, r)
			waiting := make(chan struct{}, 100)
			type result struct {
				call *Call
				err  error
			}
			done := make(chan result, 1)
			go func() {
				call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Release, Wait: time.Now().Add(time.Hour),
					Budget: time.Second, OnWaitFile: func() { waiting <- struct{}{} }})
				done <- result{call, err}
			}()
			<-waiting
			// The first call ends; the next one of that process is in
			// flight, and holds the pane.
			r.seq++
			r.busy.Gen, r.holder = 2, token{Process: 0xfeed, PID: os.Getppid(), Gen: 2}
			writeRecord(t, path, r)
			got := <-done
			if got.err != nil {
				t.Fatalf("Begin: %v, want a refusal", got.err)
			}
			got.call.End(false)
			if got.call.Send || got.call.By != byOtherProcess {
				t.Errorf("Send %v By %q, want refused by %q", got.call.Send, got.call.By, byOtherProcess)
			}
		})
	}
}

// TestOvertakesACallThatDoesNotMove: another process's call that is still
// in flight past the wait (a stopped process) is taken over, with a number
// above the other's; a wait ended by ctx returns ctx's error.
func TestOvertakesACallThatDoesNotMove(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	plant(t, dir, k, 1000, true, time.Now().Add(time.Hour))
	c := New(k, Options{Dir: dir})
	defer c.Close()

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Begin(ctx, context.Background(), BeginOptions{Op: Report, Wait: time.Now().Add(time.Hour)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Begin with a done ctx = %v, want context.Canceled", err)
	}
	now := time.Now()
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: now.Add(50 * time.Millisecond),
		Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli())})
	if err != nil {
		t.Fatal(err)
	}
	defer call.End(true)
	if !call.Send || !call.Overtook {
		t.Errorf("Send %v Overtook %v, want both", call.Send, call.Overtook)
	}
	if seq, _, _ := call.Seq(); seq <= 1000 && seq < uint64(now.UnixMilli()) {
		t.Errorf("seq %d, not above the other's 1000 and the clock", seq)
	}
}

// TestOvertakenCallTakesNoMoreNumbers: a call that another process took
// over while it was in flight (this process stopped past its deadline)
// gets no number for a later exchange: one above the other process's
// would put that exchange after the other's, undoing the fence. The
// claim is fenced.
func TestOvertakenCallTakesNoMoreNumbers(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	c := New(k, Options{Dir: dir})
	defer c.Close()
	call := begin(t, c, Report)
	first, _, err := call.Seq()
	if err != nil || !call.Send {
		t.Fatalf("first Seq: %v (Send %v)", err, call.Send)
	}
	// Another process overtakes the call: its own call, numbered above.
	path := plant(t, dir, k, first+5, true, time.Now().Add(time.Hour))
	seq, _, err := call.Seq()
	if !errors.Is(err, ErrOvertaken) {
		t.Errorf("Seq after the take-over = %d, %v; want ErrOvertaken", seq, err)
	}
	call.End(false)
	if got := readRecord(t, path); got.seq != first+5 {
		t.Errorf("file mark %d after the refused Seq, want the other process's %d", got.seq, first+5)
	}
	if got := c.Status(); got != statusFenced {
		t.Errorf("Status %v, want fenced", got)
	}
}

// TestCorruptMarkIsIgnored: a mark far beyond the clock (2^64-2, planted)
// is ignored with MarkErr, so that the numbers stay at the clock.
func TestCorruptMarkIsIgnored(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	path := plant(t, dir, k, math.MaxUint64-1, false, time.Time{})
	c := New(k, Options{Dir: dir})
	defer c.Close()
	const clock = 1_800_000_000_000
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: Report, Wait: time.Now().Add(time.Second),
		Budget: time.Second, Seq: true, ClockMs: clock})
	if err != nil {
		t.Fatal(err)
	}
	seq, sat, _ := call.Seq()
	call.End(true)
	if seq != clock || sat {
		t.Errorf("seq %d (saturated %v), want the clock %d", seq, sat, clock)
	}
	if call.MarkErr == nil {
		t.Error("no MarkErr for the corrupt mark")
	}
	if got := readRecord(t, path).seq; got != clock {
		t.Errorf("file mark %d, want %d", got, clock)
	}
}

// TestHolderLearnsItWasSuperseded: a claim that holds the pane and makes
// no call meanwhile still takes the pane back (OnFree) once a newer claim
// let go of it: told at once by a newer claim of this process, and from
// the pane file when the newer claim is another process's, whether that
// process released the pane or exited.
func TestHolderLearnsItWasSuperseded(t *testing.T) {
	tests := []struct {
		name      string
		supersede func(t *testing.T, k Key, dir string)
	}{
		{name: "newer claim of the process released", supersede: func(t *testing.T, k Key, dir string) {
			newer := New(k, Options{Dir: dir})
			defer newer.Close()
			do(t, newer, Report)
			do(t, newer, Release)
		}},
		{name: "newer claim of the process closed", supersede: func(t *testing.T, k Key, dir string) {
			newer := New(k, Options{Dir: dir})
			do(t, newer, Report)
			newer.Close()
		}},
		{name: "another process released", supersede: func(t *testing.T, k Key, dir string) {
			path := plant(t, dir, k, 10, false, time.Time{})
			r := readRecord(t, path)
			r.holder = token{}
			writeRecord(t, path, r)
		}},
		{name: "another process exited", supersede: func(t *testing.T, k Key, dir string) {
			path := plant(t, dir, k, 10, false, time.Time{})
			r := readRecord(t, path)
			r.holder.PID = exitedPID(t)
			writeRecord(t, path, r)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			freed := make(chan struct{}, 1)
			c := New(k, Options{Dir: dir, OnFree: func() { freed <- struct{}{} }})
			defer c.Close()
			if call := do(t, c, Report); !call.Send {
				t.Fatal("first report not sent")
			}
			// c makes no call from here until OnFree.
			tt.supersede(t, k, dir)
			wait, cancel := context.WithTimeout(t.Context(), 20*time.Second) // a bound, not a synchronisation
			defer cancel()
			select {
			case <-freed:
			case <-wait.Done():
				t.Fatal("no OnFree within 20 s")
			}
			if call := do(t, c, Report); !call.Send || !call.Claimed {
				t.Errorf("report after the take-back: Send %v Claimed %v, want both", call.Send, call.Claimed)
			}
			if got := c.Status(); got != statusHolder {
				t.Errorf("status %s, want holder", got)
			}
		})
	}
}

func writeRecord(t *testing.T, path string, r record) {
	t.Helper()
	var b [recordLen]byte
	r.marshal(&b)
	// In place, as the package writes it: a truncation would show the
	// watch an empty file (a free pane) for a moment.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b[:], 0); err != nil {
		t.Fatal(err)
	}
}

// exitedPID returns the pid of a process that has exited and been reaped.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestWatchLooksOnlyBetweenCalls: the watch's look at the pane file tells
// nothing while a call of this process is in flight on the pane. Between
// the call's lock and its write the file still names the holder before it
// (nobody, in a fresh file, or the process the call is taking the pane
// from), and read as a look it would say that the claim was superseded,
// so that OnFree sent a report nobody asked for.
func TestWatchLooksOnlyBetweenCalls(t *testing.T) {
	tests := []struct {
		name   string
		holder func() token // what the file names before the call's write
	}{
		{name: "fresh file", holder: func() token { return token{} }},
		{name: "another live process", holder: func() token { return token{Process: 0xfeed, PID: os.Getppid(), Gen: 1} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			c := New(k, Options{Dir: dir})
			defer c.Close()
			do(t, c, Report) // the file names c, and c knows it
			call := begin(t, c, Report)
			path := filepath.Join(dir, FileName(k))
			written := readRecord(t, path)
			before := written
			before.holder, before.busy = tt.holder(), token{}
			writeRecord(t, path, before)
			by, lost, known := c.heldBy(c.l.file)
			writeRecord(t, path, written)
			call.End(true)
			if by != "" || lost || known {
				t.Errorf("look during a call: by %q, lost %v, known %v; want nothing known", by, lost, known)
			}
			if by, lost, known := c.heldBy(c.l.file); by != "" || lost || !known {
				t.Errorf("look after the call: by %q, lost %v, known %v; want the pane known to be c's", by, lost, known)
			}
		})
	}
}

// beginWaiting is begin with a wait of five seconds.
func beginWaiting(t *testing.T, c *Claim, op Op) *Call {
	t.Helper()
	now := time.Now()
	call, err := c.Begin(t.Context(), context.Background(), BeginOptions{Op: op, Wait: now.Add(5 * time.Second),
		Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli())})
	if err != nil {
		t.Fatalf("Begin(%s): %v", op, err)
	}
	return call
}

// TestBusyDetail: each way a call fails with ErrBusy has its own few
// fixed words for the diagnostic, naming no path and no system error.
func TestBusyDetail(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{name: "stuck lock", err: fmt.Errorf("report: %w", &StuckError{Path: "/state/p", Held: time.Second}),
			want: "the pane file's lock is held by a process that does not move (stopped?)"},
		{name: "taken over, not opened again", err: &ReopenError{Path: "/state/p", Err: errors.New("too many open files")},
			want: "the pane file was taken over by another process and could not be opened again"},
		{name: "another call", err: ErrBusy, want: "another call on the pane did not finish in time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BusyDetail(tt.err); got != tt.want {
				t.Errorf("BusyDetail(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}
