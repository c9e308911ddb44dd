package owner

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/filelock"
)

var working = adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}

// key returns a key of a pane of its own for t.
func key(t *testing.T) Key { return Key{Kind: "test", Server: t.Name(), Pane: "%0"} }

// call makes one call of o and ends it delivered, returning its number.
func call(t *testing.T, o *Owner, op Op, opts BeginOptions) *Call {
	t.Helper()
	opts.Op = op
	if opts.Wait.IsZero() {
		opts.Wait = time.Now().Add(time.Minute)
	}
	opts.Budget = time.Minute
	c, err := o.Begin(t.Context(), context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	c.End(c.Send)
	return c
}

func TestNewestClaimOwnsThePaneInTheProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	older := New(key(t), Options{Dir: dir})
	defer older.Close()
	if c := call(t, older, Report, BeginOptions{}); !c.Send || !c.Claimed {
		t.Fatalf("first report: Send %v Claimed %v", c.Send, c.Claimed)
	}
	newer := New(key(t), Options{Dir: dir})
	defer newer.Close()
	if c := call(t, newer, Report, BeginOptions{}); !c.Send || !c.Claimed {
		t.Fatalf("newer report: Send %v Claimed %v", c.Send, c.Claimed)
	}
	if !older.Stale() || older.Status().String() != "stale" {
		t.Errorf("older: %v, want stale", older.Status())
	}
	for _, op := range []Op{Report, Release} {
		if c := call(t, older, op, BeginOptions{}); c.Send || c.By != ByNewer {
			t.Errorf("older %v: Send %v By %q, want refused by a newer adapter", op, c.Send, c.By)
		}
	}
	if newer.Status() != StatusOwner {
		t.Errorf("newer: %v, want owner", newer.Status())
	}
}

func TestOlderClaimTakesThePaneBackWhenFree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	back := make(chan adapter.Report, 1)
	older := New(key(t), Options{Dir: dir, Resend: func(r adapter.Report) { back <- r }})
	defer older.Close()
	older.Want(working)
	call(t, older, Report, BeginOptions{})
	newer := New(key(t), Options{Dir: dir})
	call(t, newer, Report, BeginOptions{})
	newer.Close() // gives the pane up in the process
	if r := <-back; r != working {
		t.Errorf("take-back of %v, want %v", r, working)
	}
}

func TestForgottenClaimIsNotTakenBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	older := New(key(t), Options{Dir: dir, Resend: func(adapter.Report) { t.Error("a forgotten claim took the pane back") }})
	older.Want(working)
	call(t, older, Report, BeginOptions{})
	older.Forget()
	newer := New(key(t), Options{Dir: dir})
	call(t, newer, Report, BeginOptions{})
	newer.Close()
	older.Close() // waits for the goroutine, which ends without a Resend
}

func TestNumbersRiseAboveTheFileAndTheClock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	o := New(key(t), Options{Dir: dir})
	defer o.Close()
	path := filepath.Join(dir, FileName(key(t)))
	c := call(t, o, Report, BeginOptions{ClockMs: 1000})
	first, _, _ := c.Seq()
	if first < 1000 {
		t.Fatalf("first number %d, below the clock", first)
	}
	// Another process wrote a higher number meanwhile.
	writeLine(t, path, record{seq: first + 500})
	c = call(t, o, Report, BeginOptions{ClockMs: 1000})
	if n, _, _ := c.Seq(); n != first+501 {
		t.Errorf("number %d, want %d (above the file's)", n, first+501)
	}
	// A number a year beyond the clock is ignored, with MarkErr.
	writeLine(t, path, record{seq: math.MaxUint64 - 1})
	c = call(t, o, Report, BeginOptions{ClockMs: 1 << 40})
	if n, _, _ := c.Seq(); n != 1<<40 || c.MarkErr == nil {
		t.Errorf("number %d MarkErr %v, want the clock and an error", n, c.MarkErr)
	}
}

func TestStoppedHolderIsBypassed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	o := New(key(t), Options{Dir: dir})
	defer o.Close()
	call(t, o, Report, BeginOptions{ClockMs: 1000}) // makes the file
	path := filepath.Join(dir, FileName(key(t)))
	// Another process owns the pane and holds the lock, and does not move.
	f := writeLine(t, path, record{seq: 5000, owner: token{Process: 0xfeed, PID: os.Getppid(), Gen: 1}})
	if ok, err := filelock.TryLockFile(f); !ok || err != nil {
		t.Fatal(ok, err)
	}
	defer filelock.UnlockFile(f)
	release := call(t, o, Release, BeginOptions{Wait: time.Now().Add(10 * time.Millisecond)})
	if release.Send || release.By != ByOtherProcess {
		t.Errorf("release past a stopped owner: Send %v By %q, want refused", release.Send, release.By)
	}
	c := call(t, o, Report, BeginOptions{Wait: time.Now().Add(10 * time.Millisecond), ClockMs: 1000})
	if n, _, _ := c.Seq(); !c.Send || !c.Bypassed || n != 5001 {
		t.Errorf("report past a stopped owner: Send %v Bypassed %v seq %d, want sent, bypassed, 5001", c.Send, c.Bypassed, n)
	}
	if r, ok := readRecord(f); !ok || r.owner != o.tok {
		t.Errorf("the file names %v, want this claim", r.owner)
	}
	// A take-back does not wait at all.
	tb := call(t, o, Report, BeginOptions{TakeBack: true})
	if tb.Send || !tb.Yielded {
		t.Errorf("take-back: Send %v Yielded %v, want yielded", tb.Send, tb.Yielded)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := record{seq: math.MaxUint64, owner: token{Process: math.MaxUint64, PID: 1<<31 - 1, Gen: math.MaxUint64}}
	b := r.marshal()
	if len(b) != recordLen {
		t.Fatalf("line of %d bytes, want %d", len(b), recordLen)
	}
	if got, ok := parseRecord(b); !ok || got != r {
		t.Errorf("parse = %v %v, want %v", got, ok, r)
	}
	for _, bad := range []string{"x", "c2 " + string(b[3:]), string(b[:len(b)-1]) + " "} {
		if _, ok := parseRecord([]byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// writeLine writes r into the pane file at path, as another process would,
// and returns the file, closed when the test ends.
func writeLine(t *testing.T, path string, r record) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.WriteAt(r.marshal(), 0); err != nil {
		t.Fatal(err)
	}
	return f
}

func ExampleFileName() {
	fmt.Println(len(FileName(Key{Kind: "tmux", Server: "/tmp/tmux-1000/default,42", Pane: "%3"})))
	// Output: 38
}

func TestReportIsSentAgainOnceABypassedHolderLetsGo(t *testing.T) {
	// tmux has no sequence numbers: the late call of a holder that did not
	// move lands after the report that went past it, so that report goes
	// out again once the holder lets the lock go.
	dir := filepath.Join(t.TempDir(), "state")
	back := make(chan adapter.Report, 1)
	o := New(key(t), Options{Dir: dir, Resend: func(r adapter.Report) { back <- r }})
	defer o.Close()
	call(t, o, Report, BeginOptions{}) // makes the file
	f := writeLine(t, filepath.Join(dir, FileName(key(t))), record{seq: 9, owner: token{Process: 0xfeed, PID: os.Getppid(), Gen: 1}})
	if ok, err := filelock.TryLockFile(f); !ok || err != nil {
		t.Fatal(ok, err)
	}
	o.Want(working)
	if c := call(t, o, Report, BeginOptions{Wait: time.Now().Add(10 * time.Millisecond)}); !c.Bypassed || !c.Send {
		t.Fatalf("report: Send %v Bypassed %v, want sent past the holder", c.Send, c.Bypassed)
	}
	select {
	case <-back:
		t.Fatal("sent again while the holder still has the lock")
	default:
	}
	filelock.UnlockFile(f) // the holder resumed, and its call returned
	if r := <-back; r != working {
		t.Errorf("sent again %v, want %v", r, working)
	}
}
