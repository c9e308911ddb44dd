package owner

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/filelock"
	"github.com/panestate/panestate/internal/proc"
)

// Key names one pane of one workspace server.
type Key struct {
	Kind   string // the adapter, e.g. "herdr" or "tmux"
	Server string // the server: a socket path and whatever else tells servers apart
	Pane   string // the pane's id on that server
}

// token names one claim across processes: the process (a random number, so
// that a reused pid is not the same process), its pid, the generation in it.
type token struct {
	Process uint64
	PID     int
	Gen     uint64
}

func (t token) IsZero() bool { return t == token{} }

// ours reports whether t was drawn by this process.
func (t token) ours() bool { return t.Process == self().Process }

// other reports whether t is a claim of another process that may still run
// (a reused pid counts as alive: never clear a live owner).
func (t token) other() bool {
	if t.IsZero() || t.ours() || t.PID == os.Getpid() {
		return false
	}
	return proc.Alive(t.PID)
}

var self = sync.OnceValue(func() token {
	var b [8]byte
	rand.Read(b[:]) // never fails: it crashes the program instead
	return token{Process: binary.LittleEndian.Uint64(b[:]) | 1, PID: os.Getpid()}
})

// Op is what a call does to the pane.
type Op uint8

const (
	Report  Op = iota + 1 // shows the claim's state: claims the pane
	Release               // clears it and gives the pane up
)

// String is the operation's name in diagnostics: "report" or "release".
func (o Op) String() string { return [...]string{"", "report", "release"}[o] }

// Who owns the pane when a call is refused ([Call.By]).
const (
	ByNewer        = "a newer adapter of this process"
	ByOtherProcess = "another process"
)

// ErrBusy is Begin's error when its wait ended while another call of this
// process on the pane was in flight.
var ErrBusy = errors.New("owner: another call on the pane did not finish in time")

// ErrOvertaken is [Call.Seq]'s error when another process took the pane
// while this call was stopped: it must send nothing more.
var ErrOvertaken = errors.New("owner: another process took the pane during the call")

// pollInterval is how often a claim that wants the pane reads its file.
const pollInterval = 200 * time.Millisecond

// maxMarkAhead is how far a pane file's number may be beyond the clock;
// further is ignored, so that no file can push a pane's numbers to 2^64-1.
const maxMarkAhead = 366 * 24 * time.Hour

// Trace holds seams for the adapters' tests (nil in production): Claimed once
// Begin decided the claim in the process, before any wait; Turn once it has
// the process's turn; Bypassed when a call goes past another process's lock.
var Trace struct {
	Claimed, Turn, Bypassed func(*Owner)
}

func trace(hook func(*Owner), o *Owner) {
	if hook != nil {
		hook(o)
	}
}

// pane is the process-wide state of one pane file.
type pane struct {
	turn chan struct{} // one call on the pane at a time in the process

	mu    sync.Mutex
	gen   uint64        // the generation of the claim that owns the pane here, or 0
	owner *Owner        // that claim
	freed chan struct{} // closed (and replaced) when gen is given up
	high  uint64        // the newest sequence number this process took
	refs  int           // the claims open
	file  *os.File      // open while a claim is; the turn guards it
}

// now returns gen and freed.
func (p *pane) now() (uint64, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gen, p.freed
}

// done ends the turn; the file is closed once no claim of the pane is open.
func (p *pane) done() {
	p.mu.Lock()
	if p.refs == 0 && p.file != nil {
		p.file.Close()
		p.file = nil
	}
	p.mu.Unlock()
	<-p.turn
}

type paneKey struct {
	Key
	dir string
}

// table is process-wide: a pane has one owner per process. An entry lives as
// long as the process, so that its high mark keeps numbers rising.
var table = struct {
	mu   sync.Mutex
	m    map[paneKey]*pane
	gens uint64
}{m: make(map[paneKey]*pane)}

// Options are an Owner's settings.
type Options struct {
	// Dir is the pane file's directory ([StateDir]); "" keeps the claim
	// within the process.
	Dir string
	// Resend, when set, is the take-back: it sends the report wanted
	// ([Owner.Want]) again once the pane is free after a newer claim had it,
	// on the Owner's goroutine, with BeginOptions.TakeBack.
	Resend func(adapter.Report)
}

// Owner is one adapter's claim of one pane. Begin and End bracket each call
// to the workspace, and the calls of one Owner must not overlap; the other
// methods are safe for concurrent use with everything.
type Owner struct {
	pk     paneKey
	p      *pane
	tok    token
	resend func(adapter.Report)

	claimed bool // in the pane's turn only: a report was sent since New or a Release

	mu         sync.Mutex
	staleOther bool // another process owns the pane
	closed     bool
	want       adapter.Report
	wanted     bool // want is set, and neither Release nor Forget came since
	due        bool // a newer claim took the pane: the take-back is due once it is free
	named      bool // the file named this claim after its last report
	yielded    bool // the last take-back yielded to another process's call
	bypassed   bool // a report went past another process's lock, not yet let go
	watching   bool
	kick       chan struct{}
	stop       chan struct{}
	wg         sync.WaitGroup
}

// New returns a claim of k, newer than every claim made before it in this
// process. It does no I/O.
func New(k Key, o Options) *Owner {
	table.mu.Lock()
	defer table.mu.Unlock()
	table.gens++
	pk := paneKey{k, o.Dir}
	p := table.m[pk]
	if p == nil {
		p = &pane{turn: make(chan struct{}, 1), freed: make(chan struct{})}
		table.m[pk] = p
	}
	p.mu.Lock()
	p.refs++
	p.mu.Unlock()
	tok := self()
	tok.Gen = table.gens
	return &Owner{pk: pk, p: p, tok: tok, resend: o.Resend,
		kick: make(chan struct{}, 1), stop: make(chan struct{})}
}

// Status is where a claim stands, as Explain shows it.
type Status uint8

const (
	StatusFree   Status = iota // nobody in this process owns the pane, or it was released
	StatusOwner                // the claim owns the pane
	StatusStale                // another claim owns it: a newer one of this process, or another process
	StatusClosed               // Close was called
)

func (s Status) String() string { return [...]string{"free", "owner", "stale", "closed"}[s] }

// Status returns where the claim stands, as far as this process knows.
func (o *Owner) Status() Status {
	o.mu.Lock()
	closed, staleOther := o.closed, o.staleOther
	o.mu.Unlock()
	gen, _ := o.p.now()
	switch {
	case closed:
		return StatusClosed
	case gen > o.tok.Gen, gen == o.tok.Gen && staleOther:
		return StatusStale
	case gen < o.tok.Gen:
		return StatusFree
	}
	return StatusOwner
}

// Stale reports whether another claim owns the pane. An adapter's
// [adapter.PaneOwner] returns its negation.
func (o *Owner) Stale() bool { return o.Status() == StatusStale }

// Want records r as the report the adapter wants shown, for the take-back,
// and starts the claim's goroutine if it does not run.
func (o *Owner) Want(r adapter.Report) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.want, o.wanted = r, true
	if o.resend != nil && !o.watching {
		o.watching = true
		o.wg.Add(1)
		go o.watch()
	}
}

// Wanted returns the report wanted, if one is.
func (o *Owner) Wanted() (adapter.Report, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.want, o.wanted
}

// Forget records that the pane is no longer wanted (a Release, or a host
// that stopped reporting): the goroutine ends, no take-back until a Want.
func (o *Owner) Forget() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.wanted, o.due, o.named = false, false, false
	o.wake()
}

// makeStale records that a newer claim took the pane (other: another
// process's). The take-back is due once the pane is free again.
func (o *Owner) makeStale(other bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.staleOther = o.staleOther || other
	if o.wanted && !o.due {
		o.due = true
		o.wake()
	}
}

func (o *Owner) wake() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// BeginOptions are one Begin's parameters.
type BeginOptions struct {
	Op Op
	// Wait is the latest time to wait: for this process's call in flight
	// (then ErrBusy), and for another process's (then it is bypassed).
	Wait time.Time
	// Until is when the call will have ended; zero means Budget from the
	// moment the pane is had.
	Until  time.Time
	Budget time.Duration
	// ClockMs, the wall clock in Unix milliseconds, is the floor of the
	// sequence numbers.
	ClockMs uint64
	// TakeBack is for the take-back's report: it does not wait for another
	// process's call in flight (Yielded); the goroutine tries again later.
	TakeBack bool
}

// Call is one call on the pane, between Begin and End.
type Call struct {
	o        *Owner
	op       Op
	f        *os.File
	locked   bool
	rec      record
	deadline time.Time
	clockMs  uint64
	numbered bool // Begin's number was handed out

	// Send is whether the caller may make its call. When false, it sends
	// nothing, reports one stale_owner diagnostic naming By (unless
	// Yielded) and calls End.
	Send bool
	By   string
	// Yielded: a take-back found another process's call in flight.
	Yielded bool
	// Claimed is whether this call starts a claim (the first report after
	// New or Release, or a take-back): per-claim state starts over.
	Claimed bool
	// Bypassed is whether another process held the lock past the wait (it
	// does not move: stopped?) and the call goes on without it, numbered above.
	Bypassed bool
	// FileErr is why the pane file is not used, or was corrupt and is
	// rewritten; MarkErr why its number was ignored.
	FileErr, MarkErr error
}

// Deadline is when the call must end.
func (c *Call) Deadline() time.Time { return c.deadline }

// Begin waits for the pane and decides whether the claim may make its
// call. It returns ctx's error when ctx ends first, [adapter.ErrClosed]
// when closed does, and ErrBusy when the wait passes while this process's
// call on the pane is in flight. Otherwise the caller calls End.
func (o *Owner) Begin(ctx, closed context.Context, opts BeginOptions) (*Call, error) {
	p := o.p
	c := &Call{o: o, op: opts.Op}
	p.mu.Lock()
	if p.gen > o.tok.Gen {
		p.mu.Unlock()
		return o.refused(c, ByNewer, false), nil
	}
	takes := p.gen != o.tok.Gen
	prev := p.owner
	p.gen, p.owner = o.tok.Gen, o
	p.mu.Unlock()
	if takes && prev != nil {
		prev.makeStale(false) // told at once, call or not
	}
	trace(Trace.Claimed, o)
	if err := p.waitTurn(ctx, closed, opts.Wait); err != nil {
		return nil, err
	}
	if gen, _ := p.now(); gen != o.tok.Gen { // a newer claim came meanwhile
		return o.refused(c, ByNewer, true), nil
	}
	trace(Trace.Turn, o)
	fresh := !o.claimed
	c.Claimed = opts.Op == Report && (fresh || takes)
	if p.file == nil {
		p.file, c.FileErr = openPaneFile(o.pk.dir, o.pk.Key)
	}
	if f := p.file; f != nil {
		c.f = f
		switch err := c.lock(ctx, closed, opts); {
		case errors.Is(err, errYield):
			c.f = nil
			o.mu.Lock()
			o.yielded, o.due = true, o.wanted // due again at the next look
			o.mu.Unlock()
			c.Yielded, c.Claimed, c.By = true, false, ByOtherProcess
			p.done()
			return c, nil
		case err != nil:
			p.done()
			return nil, err
		}
		var ok bool
		if c.rec, ok = readRecord(f); !ok { // c.rec is zero
			c.FileErr = &FileError{Path: f.Name(), Err: errors.New("not a pane record; rewritten")}
		}
		// A report that starts a claim, or went past a stopped holder, takes
		// the pane; a release never clears another's state.
		if c.rec.owner.other() && (opts.Op == Release || !fresh && !takes && !c.Bypassed) {
			c.unlock()
			return o.refused(c, ByOtherProcess, true), nil
		}
	}
	c.deadline, c.clockMs = opts.Until, opts.ClockMs
	if c.deadline.IsZero() {
		c.deadline = time.Now().Add(opts.Budget)
	}
	c.take()
	wrote := false
	if c.f != nil {
		if opts.Op == Report {
			c.rec.owner = o.tok
		}
		err := writeRecord(c.f, c.rec)
		if wrote = err == nil; !wrote {
			c.FileErr = err
		}
	}
	c.Send = true
	o.mu.Lock()
	o.staleOther = false
	if opts.Op == Report {
		o.claimed, o.named, o.bypassed = true, wrote, o.bypassed || c.Bypassed
	}
	o.mu.Unlock()
	if opts.Op == Release {
		o.Forget()
	}
	return c, nil
}

// waitTurn waits until wait for no other call of this process to be in
// flight on the pane.
func (p *pane) waitTurn(ctx, closed context.Context, wait time.Time) error {
	select {
	case p.turn <- struct{}{}:
	default:
		select {
		case p.turn <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		case <-closed.Done():
			return adapter.ErrClosed
		case <-time.After(time.Until(wait)):
			select {
			case p.turn <- struct{}{}:
			default:
				return ErrBusy
			}
		}
	}
	if closed.Err() != nil {
		p.done()
		return adapter.ErrClosed
	}
	return nil
}

var errYield = errors.New("owner: another process's call is in flight")

// lock takes the pane file's lock until End, waiting for another process's
// call until opts.Wait (a take-back: errYield) and then going on without it
// (Bypassed); a lock that fails is bypassed too, with FileErr.
func (c *Call) lock(ctx, closed context.Context, opts BeginOptions) error {
	backoff := 100 * time.Microsecond
	for {
		ok, err := filelock.TryLockFile(c.f)
		switch {
		case err != nil:
			c.FileErr = &FileError{Path: c.f.Name(), Err: err}
			c.Bypassed = true
			return nil
		case ok:
			c.locked = true
			return nil
		case opts.TakeBack:
			return errYield
		}
		left := time.Until(opts.Wait)
		if left <= 0 {
			c.Bypassed = true
			trace(Trace.Bypassed, c.o)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-closed.Done():
			return adapter.ErrClosed
		case <-time.After(min(backoff, left)): // another process's call: it lets go when it ends
		}
		backoff = min(2*backoff, 20*time.Millisecond)
	}
}

func (c *Call) unlock() {
	if c.locked {
		filelock.UnlockFile(c.f)
		c.locked = false
	}
}

// refused records a refused call: a report makes the claim stale (the
// take-back is armed), a release gives the claim up.
func (o *Owner) refused(c *Call, by string, inTurn bool) *Call {
	c.By = by
	if c.op == Release {
		o.claimed = false
		o.Forget()
	} else {
		o.makeStale(by == ByOtherProcess)
	}
	if inTurn {
		o.p.done()
	}
	return c
}

// take sets the call's number above the clock, this process's numbers and
// the file's (unless beyond maxMarkAhead: MarkErr), saturating at 2^64-1.
func (c *Call) take() uint64 {
	mark := c.rec.seq
	if c.clockMs != 0 && mark > c.clockMs && mark-c.clockMs > uint64(maxMarkAhead/time.Millisecond) {
		c.MarkErr = fmt.Errorf("owner: the pane file's sequence number %d is more than %s beyond the clock (%d): corrupt or planted, ignored", mark, maxMarkAhead, c.clockMs)
		mark = 0
	}
	p := c.o.p
	p.mu.Lock()
	n := max(c.clockMs, p.high, p.high+1, mark, mark+1) // x+1 wraps to 0 at 2^64-1
	p.high = n
	p.mu.Unlock()
	c.rec.seq = n
	return n
}

// Seq returns the sequence number of the call's next exchange, and whether
// it is 2^64-1. The first is Begin's; each later one is above the file's,
// read again, and written back. A report whose pane another process took
// meanwhile (this one was stopped) gets ErrOvertaken: it sends nothing more.
func (c *Call) Seq() (seq uint64, saturated bool, err error) {
	if !c.numbered {
		c.numbered = true
		return c.rec.seq, c.rec.seq == math.MaxUint64, nil
	}
	if c.f != nil {
		rec, _ := readRecord(c.f) // zero when it does not parse
		if c.op == Report && rec.owner.other() {
			c.o.makeStale(true)
			return 0, false, ErrOvertaken
		}
		c.rec.seq = max(c.rec.seq, rec.seq)
	}
	seq = c.take()
	if c.f != nil {
		if err := writeRecord(c.f, c.rec); err != nil && c.FileErr == nil {
			c.FileErr = err
		}
	}
	return seq, seq == math.MaxUint64, nil
}

// End ends the call; delivered says whether the workspace took it. A
// delivered release gives the pane up, in the process and in the file,
// waking an older claim of this process that wants it back.
func (c *Call) End(delivered bool) {
	if !c.Send {
		return
	}
	o := c.o
	released := delivered && c.op == Release
	if released {
		o.claimed = false
		if rec, ok := readRecord(c.f); c.f != nil && ok && (rec.owner.IsZero() || rec.owner.ours()) {
			rec.owner = token{}
			_ = writeRecord(c.f, rec)
		}
	}
	c.unlock()
	o.p.done()
	if released {
		o.free()
	}
}

// free gives the pane up within the process, if o owns it.
func (o *Owner) free() {
	p := o.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen == o.tok.Gen {
		p.gen, p.owner = 0, nil
		close(p.freed)
		p.freed = make(chan struct{})
	}
}

// Close gives the pane up within the process (not in the workspace or the
// file: an older claim may take it back) and ends the goroutine, waiting for
// a Resend in progress. It is idempotent.
func (o *Owner) Close() {
	o.mu.Lock()
	first := !o.closed
	if first {
		o.closed = true
		close(o.stop)
	}
	o.mu.Unlock()
	o.free()
	o.wg.Wait()
	if !first {
		return
	}
	p := o.p
	p.mu.Lock()
	p.refs--
	last := p.refs == 0
	p.mu.Unlock()
	if last {
		select {
		case p.turn <- struct{}{}:
			p.done() // closes the file
		default: // a call in flight closes it at its end
		}
	}
}

// watch is the take-back: while the pane is wanted, it learns that a newer
// claim took it (kick, or the file) and calls Resend once it is free.
func (o *Owner) watch() {
	defer o.wg.Done()
	var tick <-chan time.Time // never, without a pane file
	if o.pk.dir != "" {
		t := time.NewTicker(pollInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		_, freed := o.p.now()
		o.mu.Lock()
		if o.closed || !o.wanted {
			o.watching = false
			o.mu.Unlock()
			return
		}
		due := o.due
		o.mu.Unlock()
		switch by, lost, known := o.look(); {
		case !known:
		case by != "":
			o.makeStale(by == ByOtherProcess)
		case lost || due:
			o.mu.Lock()
			ok, r := !o.closed && o.wanted, o.want
			o.due, o.named, o.yielded = false, false, false
			o.mu.Unlock()
			if ok {
				o.resend(r) // its Begin sets yielded
				o.mu.Lock()
				yielded := o.yielded
				o.mu.Unlock()
				if !yielded {
					continue // look again at once: the take-back may have been refused
				}
			}
		}
		select {
		case <-o.stop:
		case <-o.kick:
		case <-freed:
		case <-tick:
		}
	}
}

// look returns who else owns the pane (ByNewer, ByOtherProcess, or ""), and
// lost: the report wanted must go out again (the file named o after its last
// report and now names no live claim, or a holder it went past let go).
// known is false while a call of this process is in flight or the record is bad.
func (o *Owner) look() (by string, lost, known bool) {
	p := o.p
	if gen, _ := p.now(); gen > o.tok.Gen {
		return ByNewer, false, true
	}
	select {
	case p.turn <- struct{}{}:
		defer p.done()
	default:
		return "", false, false
	}
	f := p.file
	if f == nil {
		return "", false, true
	}
	o.mu.Lock()
	bypassed, named := o.bypassed, o.named
	o.mu.Unlock()
	if bypassed {
		// Once a holder a report went past lets go, its late call has
		// returned: the report goes out again (tmux has no numbers).
		if ok, err := filelock.TryLockFile(f); ok && err == nil {
			filelock.UnlockFile(f)
			o.mu.Lock()
			o.bypassed = false
			o.mu.Unlock()
			return "", true, true
		}
	}
	rec, ok := readRecord(f)
	switch {
	case !ok:
		return "", false, false
	case rec.owner == o.tok:
		return "", false, true
	case rec.owner.other():
		return ByOtherProcess, false, true
	case rec.owner.ours():
		return "", false, true
	}
	return "", named, true
}
