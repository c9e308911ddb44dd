package claim

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/filelock"
	"github.com/panestate/panestate/internal/proc"
)

// Key names one pane target of one workspace server.
type Key struct {
	Kind   string // the adapter, e.g. "herdr" or "tmux"
	Server string // the server: a socket path and whatever else tells servers apart
	Pane   string // the pane's id on that server
}

// token names one claim across processes: the claiming process (a random
// number drawn once per process, with its pid, so that a reused pid is not
// taken for the same process) and the claim's generation within it. The
// zero token is nobody.
type token struct {
	Process uint64
	PID     int
	Gen     uint64
}

// IsZero reports whether t is nobody.
func (t token) IsZero() bool { return t == token{} }

// String renders t as "pid/process/gen".
func (t token) String() string { return fmt.Sprintf("%d/%016x/%d", t.PID, t.Process, t.Gen) }

// ours reports whether t was drawn by this process.
func (t token) ours() bool { return t.Process == self().Process }

// alive reports whether the process that drew t may still run: this
// process, or another whose pid is alive. A pid that is alive but reused
// by an unrelated process counts as alive: the claim then waits for that
// process too, which errs on the side of never clearing a live owner.
func (t token) alive() bool {
	if t.ours() {
		return true
	}
	if t.PID == os.Getpid() {
		return false // this pid, another process: one that exited before us
	}
	return proc.Alive(t.PID)
}

// self is this process's part of every token, drawn once, on first use.
var self = sync.OnceValue(func() token {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		binary.LittleEndian.PutUint64(b[:], uint64(time.Now().UnixNano()))
	}
	return token{Process: binary.LittleEndian.Uint64(b[:]) | 1, PID: os.Getpid()}
})

// Op is what a call does to the pane.
type Op uint8

const (
	// Report shows the claim's state in the pane: it claims the pane.
	Report Op = iota + 1
	// Release clears the claim's state from the pane and gives it up.
	Release
)

func (o Op) String() string {
	if o == Release {
		return "release"
	}
	return "report"
}

// Who holds the pane when a call is refused.
const (
	byNewer        = "a newer adapter of this process"
	byOtherProcess = "another process"
)

// ErrBusy is Begin's error when the wait ended before the call could
// start: another call of this process on the pane, or a process holding
// the pane file's lock for a moment, held it past the wait's deadline.
var ErrBusy = errors.New("claim: waiting for another call on the pane")

// StuckError is the error, wrapping ErrBusy, of a call that found the pane
// file's lock held at every try until its bound (Begin: the wait; a later
// number of a call in flight: its deadline) and could not take the file
// over: a process stopped in the moment it holds the lock (Ctrl-Z,
// SIGSTOP) keeps it for as long as it stays stopped. Begin takes the file
// over on Unix, and returns this error where a pane file is not taken
// over (Windows, see takeOver); Call.Seq returns it on every system, since
// a number not written in the pane file could be taken again by the
// process that takes the file over next.
type StuckError struct {
	Path string        // the pane file
	Held time.Duration // how long the lock was found held, at every try
}

func (e *StuckError) Error() string {
	return fmt.Sprintf("claim: pane file %s: its lock was held for %v by a process that does not move (stopped?)", e.Path, e.Held.Round(time.Millisecond))
}

func (e *StuckError) Unwrap() error { return ErrBusy }

// ReopenError is Begin's error, wrapping ErrBusy and why, for a call
// whose pane file another process took over (see the package doc) and
// which could not open, lock or read the file put in its place. The
// call is not made: numbered without the pane file, from the clock and
// this process's own marks, it could go out at or below a number the
// taker sent (the workspace would ignore it) or above it without being in
// the file (the workspace would ignore the taker's next call). The next
// call tries the path again.
type ReopenError struct {
	Path string // the pane file
	Err  error
}

func (e *ReopenError) Error() string {
	return "claim: pane file " + e.Path + " taken over by another process, not opened again: " + e.Err.Error()
}

func (e *ReopenError) Unwrap() []error { return []error{ErrBusy, e.Err} }

// BusyDetail returns why a call failed with ErrBusy, in a few fixed words
// for a diagnostic (no path, no system error): a pane file's lock held by
// a process that does not move (StuckError), a pane file taken over by
// another process and not opened again (ReopenError), or another call
// that did not finish in time.
func BusyDetail(err error) string {
	var stuck *StuckError
	var reopen *ReopenError
	switch {
	case errors.As(err, &stuck):
		return "the pane file's lock is held by a process that does not move (stopped?)"
	case errors.As(err, &reopen):
		return "the pane file was taken over by another process and could not be opened again"
	}
	return "another call on the pane did not finish in time"
}

// maxMarkAhead is how far a sequence mark read from a pane file may be
// beyond the clock. A mark further ahead is corrupt or planted (taking it
// would exhaust the 64-bit range and burn the pane), and is ignored with
// Call.MarkErr set. A year is far more than any clock step a running
// machine sees (NTP corrections, a virtual machine resumed from an old
// snapshot), and leaves room for 2^64 ms / 1 year ≈ 5.8 × 10^8 years of
// numbers above it.
const maxMarkAhead = 366 * 24 * time.Hour

// pollInterval is how often a claim with an OnFree watch (a claim that
// holds the pane, or was refused it, and was not released since) reads its
// pane file: to learn that another process took the pane although this
// claim made no call, and to take the pane back once that process released
// it or exited. It is also the longest Begin waits between two looks while
// another process's call is in flight.
const pollInterval = 200 * time.Millisecond

// lease is the process-wide record of one pane (and pane-file directory).
type lease struct {
	turn chan struct{} // one call on the pane at a time in this process: the call whose turn it is

	mu     sync.Mutex
	holder uint64        // generation of the claim that owns the pane here, or 0
	owner  *Claim        // the claim of generation holder, or nil
	freed  chan struct{} // closed (and replaced) when holder is given up
	mark   uint64        // the newest sequence number this process took
	file   *os.File      // the pane file, open for the life of the process, or nil
	call   *os.File      // the call lock's file, likewise, or nil (see Call.End)
	// callErr is why the call lock's file was refused (a link planted in
	// its place, say), told with every call as its FileErr.
	callErr error
	// followed is whether file (or, while file is nil, the file at the
	// pane file's path) is one that another process's take-over put in
	// place and no call of this process has locked and read yet: a call
	// that cannot use it is refused (ReopenError), not made without it.
	followed bool
	refs     int // the claims of the lease not closed: at 0, its files are closed
}

// done ends the turn of the call (or look at the file) that has it. Once
// every claim of the lease is closed, the lease's files are closed first:
// the next claim opens them again.
func (l *lease) done() {
	l.mu.Lock()
	if l.refs == 0 {
		if l.file != nil {
			l.file.Close()
		}
		if l.call != nil {
			l.call.Close()
		}
		l.file, l.call, l.callErr = nil, nil, nil
	}
	l.mu.Unlock()
	<-l.turn
}

type leaseKey struct {
	Key
	dir string
}

// table is process-wide: adapters come and go (a settings reload opens a
// successor before the predecessor is closed; a host may build several
// registries), but a pane has one owner per process. An entry is small and
// is kept for the life of the process (its mark keeps numbers above those
// it took, whatever the clock does); its files are open while a claim of
// it is (see Claim.Close). A process claims one pane in practice.
var table = struct {
	mu   sync.Mutex
	m    map[leaseKey]*lease
	gens uint64
}{m: make(map[leaseKey]*lease)}

// Options are a Claim's settings.
type Options struct {
	// Dir is the directory of the pane file (see [StateDir]); "" keeps the
	// claim within the process.
	Dir string
	// OnFree, when set, is called on a goroutine of the claim once the
	// claim may take the pane back from a newer claim: the newer claim
	// released it, was closed, or its process exited. The adapter re-sends
	// its last report from it. The claim learns that it was superseded
	// whether or not it makes a call meanwhile: at once from a newer claim
	// of this process, within 200 ms from another process (the
	// watch reads the pane file), and at a refused Report. The watch runs
	// from the first Report (sent or refused) until a Release or Close;
	// OnFree is called at most once per supersession and never after Close
	// has returned.
	OnFree func()
}

// Claim is one adapter's claim of one pane. Every adapter opened for a
// pane gets its own, newer than every earlier one. Begin and End bracket
// each call to the workspace; the calls of one Claim must not overlap (the
// adapter's own gate, such as a calls.Gate, serialises them), while calls
// of different Claims on one pane wait for each other. Status, Stale and
// token are safe for concurrent use with everything; Close may be called
// at any time.
type Claim struct {
	key    Key
	dir    string
	l      *lease
	tok    token
	onFree func()

	// Used by the call in progress only (in the pane's turn).
	claimed bool // a report was sent since New or the last Release

	mu         sync.Mutex
	fenced     bool // another process holds the pane
	closed     bool
	wants      bool // a Report came (sent or refused) and no Release since
	superseded bool // a newer claim took the pane; OnFree is due once it is free
	named      bool // the last sent Report wrote this claim into the pane file
	watching   bool
	yielded    bool          // the last OnFree's take-back yielded (see BeginOptions.Yield)
	kick       chan struct{} // wakes the watch (buffered, one)
	stop       chan struct{}
	wg         sync.WaitGroup
}

// New returns a claim of k, newer than every claim made before it in this
// process. It does no I/O: the pane file is opened by the first Begin.
func New(k Key, o Options) *Claim {
	table.mu.Lock()
	defer table.mu.Unlock()
	table.gens++
	lk := leaseKey{Key: k, dir: o.Dir}
	l := table.m[lk]
	if l == nil {
		l = &lease{turn: make(chan struct{}, 1), freed: make(chan struct{})}
		table.m[lk] = l
	}
	l.mu.Lock()
	l.refs++
	l.mu.Unlock()
	tok := self()
	tok.Gen = table.gens
	return &Claim{key: k, dir: o.Dir, l: l, tok: tok, onFree: o.OnFree,
		kick: make(chan struct{}, 1), stop: make(chan struct{})}
}

// holderToken returns the claim's token, as it appears in the pane file.
func (c *Claim) holderToken() token { return c.tok }

// Status is where a claim stands.
type Status uint8

const (
	statusFree   Status = iota // nobody in this process holds the pane, or it was released
	statusHolder               // the claim owns the pane
	Retired                    // a newer claim of this process holds the pane
	statusFenced               // another process holds the pane
	statusClosed               // Close was called
)

func (s Status) String() string {
	return [...]string{"free", "holder", "retired", "fenced", "closed"}[s]
}

// Status returns where the claim stands, as far as this process knows.
func (c *Claim) Status() Status {
	c.mu.Lock()
	closed, fenced := c.closed, c.fenced
	c.mu.Unlock()
	c.l.mu.Lock()
	holder := c.l.holder
	c.l.mu.Unlock()
	switch {
	case closed:
		return statusClosed
	case holder > c.tok.Gen:
		return Retired
	case holder != c.tok.Gen:
		return statusFree
	case fenced:
		return statusFenced
	}
	return statusHolder
}

// Stale reports whether another claim holds the pane: a newer one of this
// process (Retired) or another process (statusFenced). An adapter's
// [adapter.PaneOwner] returns its negation.
func (c *Claim) Stale() bool {
	s := c.Status()
	return s == Retired || s == statusFenced
}

// Call is one call on the pane, between Begin and End. While it is open no
// other call of this process on the pane starts, and another process's
// call waits for it up to its Deadline.
type Call struct {
	c   *Claim
	op  Op
	rec record
	tok token // the busy token written for this call
	f   *os.File
	cf  *os.File // the call lock's file, or nil
	// held is whether the call holds the call lock, which other processes
	// see as the call in flight (see End).
	held bool
	// lost is whether relock found f taken over by another process (see
	// takeOver): the call was overtaken.
	lost bool

	// Send is whether the caller may make its call. When false (Stale),
	// the caller sends nothing, reports one stale_owner diagnostic naming
	// By, and calls End.
	Send bool
	By   string
	// Claimed is whether this call starts a claim of the pane (the first
	// report after New or Release, or one taking the pane back): per-claim
	// state (diagnostics, what goes once per claim) starts over.
	Claimed bool
	// waitFor is the call of another process that a release waits for,
	// and behind whether that call ended: the release is then refused (see
	// Claim.behind).
	waitFor token
	behind  bool
	// Yielded is whether a Yield call was refused because another
	// process's call was in flight; the OnFree watch tries again.
	Yielded bool
	// Overtook is whether another process's call was still in flight and
	// did not end by its deadline or the wait's (a stopped process): this
	// call took the pane from it.
	Overtook bool
	// FileErr is why the pane file is not used, or was corrupt and is
	// rewritten, or why the call lock's file beside it was refused (a
	// *fileError), or nil. Unused, ownership holds within the process
	// only; without the call lock's file, calls clear their marks at End.
	FileErr error
	// MarkErr says the file's sequence mark was corrupt and was ignored.
	MarkErr error

	clockMs  uint64
	seqUsed  bool   // Begin's number was handed out
	last     uint64 // the newest number handed out
	deadline time.Time
}

// Deadline is when the call must end: Begin's until, or now plus its
// budget when until is zero.
func (call *Call) Deadline() time.Time { return call.deadline }

// BeginOptions are one Begin's parameters.
type BeginOptions struct {
	Op Op
	// Wait is the latest time to wait for the pane: for this process's
	// call in flight (then ErrBusy) and for another process's (then the
	// call takes the pane from it).
	Wait time.Time
	// Until is when the call will have ended; zero means Budget from the
	// moment the pane is had.
	Until  time.Time
	Budget time.Duration
	// Seq is whether the call takes sequence numbers ([Call.Seq]);
	// ClockMs, the wall clock in Unix milliseconds, is their floor.
	Seq     bool
	ClockMs uint64
	// OnTurn, when set, is called once no other call of this process is
	// in flight on the pane, before the pane file is read: for tests and
	// traces.
	OnTurn func()
	// Yield is for a call that nobody waits for, such as the report an
	// OnFree sends to take the pane back: it does not wait for another
	// process's call in flight. Begin then refuses it at once (Send false,
	// Yielded true), and the OnFree watch calls OnFree again at its next
	// look that finds the pane free, so that take-backs never queue ahead
	// of the calls of the processes that use the pane (a release among
	// them, with its short budget).
	Yield bool
	// OnWaitFile, when set, is called each time the call starts to wait
	// for another process's call in flight: for tests and traces.
	OnWaitFile func()
	// OnLocked, when set, is called while the call holds the pane file's
	// lock: with "read" once the record is read, and with "written" once
	// the call's mark is written and checked, before the lock is let go.
	// For tests that stop a process there.
	OnLocked func(stage string)
	// OnTakeOver, when set, is called when the call took the pane file
	// over from a process that kept its lock past the wait (see Begin):
	// for tests and traces.
	OnTakeOver func()
	// OnClaim, when set, is called once the claim within the process is
	// decided (the claim holds the pane here, or was refused by a newer
	// one), before any waiting: for tests and traces.
	OnClaim func()
}

// Begin waits for the pane and decides whether the claim may make its
// call, by these rules:
//
//   - Within the process, the newest claim owns the pane: a call of an
//     older claim while a newer one holds it is refused (By byNewer). A
//     claim takes the pane when it is free or held by an older claim.
//   - Across processes (through the pane file): a report that starts a
//     claim (the first after New or Release) takes the pane, fencing the
//     process that held it; any other call is made when the pane is held by
//     this claim or this process, free, or held by a process that exited,
//     and is refused (By byOtherProcess) while another live process holds
//     it.
//   - A call of another process in flight is waited for, up to its own
//     deadline or opts.Wait, whichever comes first; past that the process
//     does not move (stopped, say), and this call takes the pane.
//
// Sequence numbers are reserved in the pane file before the call, above
// the clock and every number any process took, so that calls reach the
// workspace in the order of their numbers. A refused release gives the
// claim up here (it never clears a newer claim's state).
//
// Begin returns ctx's error when ctx ends, [adapter.ErrClosed] when closed
// ends first, ErrBusy when opts.Wait passes while this process's call on
// the pane is in flight (a [StuckError] when a pane file's lock kept it),
// and a [ReopenError] (ErrBusy too) when another process took the pane
// file over and the file it put in place cannot be used. Otherwise the
// caller must call End.
func (c *Claim) Begin(ctx, closed context.Context, opts BeginOptions) (*Call, error) {
	l := c.l
	call := &Call{c: c, op: opts.Op}
	// The claim is made before waiting: a newer claim retires an older one
	// at once, even while the older one's call is in flight.
	l.mu.Lock()
	if l.holder > c.tok.Gen {
		l.mu.Unlock()
		call.By = byNewer
		c.refused(opts.Op, false)
		if opts.OnClaim != nil {
			opts.OnClaim()
		}
		return call, nil
	}
	takes := l.holder != c.tok.Gen
	prev := l.owner
	l.holder, l.owner = c.tok.Gen, c
	l.mu.Unlock()
	if takes && prev != nil {
		prev.supersede(false) // the older claim learns it at once, call or not
	}
	if opts.OnClaim != nil {
		opts.OnClaim()
	}

	select {
	case l.turn <- struct{}{}: // no call in flight: no timer needed
	default:
		if err := l.waitTurn(ctx, closed, opts.Wait); err != nil {
			return nil, err
		}
	}
	if closed.Err() != nil {
		l.done()
		return nil, adapter.ErrClosed
	}
	l.mu.Lock()
	retired := l.holder != c.tok.Gen // a newer claim came while this one waited
	f, cf, callErr, followed := l.file, l.call, l.callErr, l.followed
	l.mu.Unlock()
	if retired {
		call.By = byNewer
		c.refused(opts.Op, true)
		return call, nil
	}
	if opts.OnTurn != nil {
		opts.OnTurn()
	}
	fresh := !c.claimed
	call.Claimed = opts.Op == Report && (fresh || takes)

	if f == nil {
		var err error
		if f, err = openPaneFile(c.dir, c.key); err != nil {
			if followed {
				// The file a take-over put in place, not used yet (see
				// unusable): the call is not made without it.
				l.done()
				return nil, &ReopenError{Path: filepath.Join(c.dir, FileName(c.key)), Err: err}
			}
			call.FileErr = err
		} else {
			// Without the call lock's file (a link planted in its place,
			// say), calls clear their mark at End instead: slower, as safe.
			if cf == nil {
				cf, callErr = openCallFile(c.dir, c.key)
			}
			l.mu.Lock()
			l.file, l.call, l.callErr = f, cf, callErr
			l.mu.Unlock()
		}
	}
	if call.FileErr == nil && callErr != nil {
		call.FileErr = callErr
	}
	call.cf = cf
	if f != nil {
		if err := c.lockFile(ctx, closed, call, f, followed, opts); err != nil {
			l.done()
			if err == errYield {
				c.yield()
				call.By, call.Yielded, call.Claimed = byOtherProcess, true, false
				return call, nil
			}
			return nil, err
		}
	}
	if call.f != nil {
		// The call has the file locked and read: one a take-over put in
		// place is this process's pane file now, as any.
		l.mu.Lock()
		if l.file == call.f {
			l.followed = false
		}
		l.mu.Unlock()
		if opts.OnLocked != nil {
			opts.OnLocked("read")
		}
		if !c.decide(call, opts.Op, fresh) {
			call.unlockFile()
			call.unlockCall()
			c.refused(opts.Op, true)
			return call, nil
		}
	}
	call.deadline = opts.Until
	if call.deadline.IsZero() {
		call.deadline = time.Now().Add(opts.Budget)
	}
	call.clockMs = opts.ClockMs
	if opts.Seq {
		call.take()
	}
	wrote := false
	if call.f != nil {
		call.tok = c.tok
		call.rec.busy = c.tok
		call.rec.until = uint64(max(call.deadline.UnixMilli(), 0))
		if opts.Op == Report {
			call.rec.holder = c.tok
		}
		call.rec.locked = call.lockCall()
		wrote = call.write()
		// Checked after the write, before the lock goes: a process that
		// takes the file over marks it before it copies its record, so a
		// call that finds no mark here has its number in the copy, and
		// gets past it.
		lost := takenOver(call.f)
		if !lost && opts.OnLocked != nil {
			opts.OnLocked("written")
		}
		call.unlockFile()
		if lost {
			// This process was stopped holding the lock and another took
			// the file over: the call is overtaken, and sends nothing.
			// The next call goes to the file in its place.
			if _, err := c.reopen(call.f); err != nil && call.FileErr == nil {
				call.FileErr = err
			}
			call.f = nil
			call.unlockCall()
			call.Overtook = false
			call.By = byOtherProcess
			c.supersede(true)
			c.refused(opts.Op, true)
			return call, nil
		}
	}
	call.Send = true
	c.mu.Lock()
	c.fenced = false
	c.mu.Unlock()
	if opts.Op == Report {
		c.claimed = true
		c.want(false)
		if call.f != nil {
			c.mu.Lock()
			c.named = wrote
			c.mu.Unlock()
		}
	} else {
		c.unwant()
	}
	return call, nil
}

// waitTurn waits until wait for the pane's turn: for no other call of
// this process to be in flight on the pane.
func (l *lease) waitTurn(ctx, closed context.Context, wait time.Time) error {
	timer := time.NewTimer(max(time.Until(wait), 0))
	defer timer.Stop()
	select {
	case l.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-closed.Done():
		return adapter.ErrClosed
	case <-timer.C:
		select {
		case l.turn <- struct{}{}:
			return nil
		default:
			return ErrBusy
		}
	}
}

// errYield is lockFile's error for a Yield call that found another
// process's call in flight.
var errYield = errors.New("claim: another process's call is in flight")

// yield records a Yield call refused because another process's call was in
// flight: the take-back is due again, at the watch's next look (not at
// once: the watch is not woken, so that it does not spin while that call
// lasts).
func (c *Claim) yield() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.superseded = c.wants
	c.yielded = true
}

// refused records a refused call: a report is superseded (OnFree is
// armed), a release gives the claim up. The call lock, if held, is let go.
func (c *Claim) refused(op Op, locked bool) {
	if op == Release {
		c.claimed = false
		c.unwant()
	} else {
		c.want(true)
	}
	if locked {
		c.l.done()
	}
}

// takeOverAfter is how long the pane file's lock must have been found
// held, at every try, before a call whose wait has passed takes the file
// over (see takeOver): a process holds it for microseconds per call, so a
// lock held that long belongs to a process that does not move (stopped,
// say). A call whose whole wait is shorter asks half its wait.
const takeOverAfter = 100 * time.Millisecond

// takeOverGrace is how long past its wait a call that lost a take-over to
// another process's (both found the same file stuck) goes on trying the
// lock of the file that process put in place, which it holds for a moment.
const takeOverGrace = 100 * time.Millisecond

// lockFile takes the pane file's lock and reads the record, waiting while
// another process's call is in flight (see Begin). call.f is left nil, with
// FileErr set, when the file cannot be locked or read; when the file is one
// another process's take-over put in place (reopened: found so in this
// call, or in an earlier one that did not use it yet), that is a
// ReopenError instead (see unusable).
//
// The lock is tried without blocking. When the wait has passed (for a
// release, half its budget) and the lock was found held at every try for
// takeOverAfter (a process stopped in the moment it holds it), the call
// takes the file over: it puts a fresh
// file in its place (takeOver), copies into it the record the stopped
// process left, which then can no longer change, and goes on with the
// fresh file as if it had locked it. The stopped process, once resumed,
// finds its file marked before it lets the lock go and sends nothing of
// that call; what it wrote before it stopped is in the record copied, so
// this call's number is above the stopped one's. A file found replaced by
// another process (here, or by its own take-over) is opened again; one
// found marked but not replaced (a take-over under way, or whose taker
// died before its rename) is waited for as a lock held, and used once the
// taker's names are stale (see clearDeadTakeOver).
func (c *Claim) lockFile(ctx, closed context.Context, call *Call, f *os.File, reopened bool, opts BeginOptions) error {
	backoff := 100 * time.Microsecond
	start := time.Now()
	wait := opts.Wait
	// The file is taken over at the wait, or, for a call whose wait and
	// call share one budget (Until set: a release), halfway through it,
	// leaving the other half for the call.
	takeAt := opts.Wait
	if half := start.Add(opts.Until.Sub(start) / 2); !opts.Until.IsZero() && half.Before(takeAt) {
		takeAt = half
	}
	stuck := min(takeOverAfter, takeAt.Sub(start)/2)
	var heldSince time.Time // the first of the tries in a row that found the lock held
	path := f.Name()
	for {
		took := false
		ok, err := filelock.TryLockFile(f)
		if err != nil {
			return c.unusable(call, f, err, reopened)
		}
		now := time.Now()
		if !ok && replaced(f) {
			// Taken over by another process while the process that holds
			// the old file's lock does not move: the lock of the file in
			// its place is the one to wait for, not that one.
			if f, err = c.reopen(f); err != nil {
				return &ReopenError{Path: path, Err: err}
			}
			reopened = true
			heldSince = time.Time{}
			continue
		}
		if !ok {
			if heldSince.IsZero() {
				heldSince = now
			}
			if !now.Before(takeAt) && takeAt.After(start) && now.Sub(heldSince) >= stuck || !now.Before(wait) {
				if now.Sub(heldSince) < stuck || !takeAt.After(start) {
					return ErrBusy // held for a moment by a process that may be running
				}
				nf, err := c.takeOver(call, f)
				switch {
				case err == nil:
					f, ok, took = nf, true, true
					if opts.OnTakeOver != nil {
						opts.OnTakeOver()
					}
				case err == errTakenOver && wait == opts.Wait:
					// Another process's take-over won: wait a moment for
					// the lock of the file it put in place.
					wait = now.Add(takeOverGrace)
					if f, err = c.reopen(f); err != nil {
						return &ReopenError{Path: path, Err: err}
					}
					reopened = true
					heldSince = time.Time{}
					continue
				case err == errNoTakeOver && now.Before(wait):
					// Not done here (Windows): wait for the lock to the end.
				case err == errNoTakeOver:
					return &StuckError{Path: f.Name(), Held: now.Sub(heldSince)}
				default:
					return ErrBusy // lost twice, or the fresh file failed (FileErr)
				}
			}
		} else {
			heldSince = time.Time{}
		}
		if ok {
			rec := call.rec // a take-over read it
			if !took {
				var b [recordLen + 1]byte
				n, err := readRecordBytes(f, b[:])
				if n == 0 && err != nil && !errors.Is(err, io.EOF) {
					filelock.UnlockFile(f)
					return c.unusable(call, f, err, reopened)
				}
				if replacedRecord(b[:n]) {
					keep := recordPart(b[:n])
					switch {
					case replaced(f):
						// Taken over by another process (see takeOver)
						// while this one waited, or while it was
						// stopped: the path names another file.
						filelock.UnlockFile(f)
						if f, err = c.reopen(f); err != nil {
							return &ReopenError{Path: path, Err: err}
						}
						reopened = true
						heldSince = time.Time{}
						continue
					case clearDeadTakeOver(f.Name(), f, len(keep)):
						// Its taker died (or stopped) before its rename:
						// the file is the pane file still.
						n = len(keep)
					default:
						// A take-over under way, renaming within
						// microseconds: waited for as a lock held.
						filelock.UnlockFile(f)
						if !now.Before(wait) {
							return ErrBusy
						}
						if err := pause(ctx, closed, backoff); err != nil {
							return err
						}
						backoff = min(2*backoff, 10*time.Millisecond, pollInterval)
						continue
					}
				}
				var perr error
				rec, perr = parseRecord(b[:n])
				if perr != nil {
					call.FileErr = &fileError{Path: f.Name(), Err: errors.New("is corrupt; rewriting it")}
				}
			}
			call.f = f
			call.rec = rec
			busy := rec.busy
			if !call.waitFor.IsZero() && (busy != call.waitFor || rec.locked && call.lockCall()) && c.behind(rec) {
				call.behind = true // the call it waited for ended: see behind
				return nil
			}
			switch {
			case busy.IsZero(), busy.ours():
				return nil
			case rec.locked && call.lockCall():
				return nil // the call's process let the call lock go: the call ended
			case uint64(max(now.UnixMilli(), 0)) >= rec.until, !now.Before(opts.Wait), !busy.alive():
				if opts.Op == Release && busy.alive() && c.behind(rec) {
					// A release is never sent over the call of a live
					// process that took the pane from c (or releases
					// it): it would clear that process's state. It is
					// refused, as it is once that call ends.
					call.behind = true
					return nil
				}
				call.Overtook = true // a call that did not end by its deadline, or ours
				return nil
			}
			if opts.Op == Release && call.waitFor.IsZero() && c.behind(rec) {
				call.waitFor = busy
			}
			filelock.UnlockFile(f)
			call.f = nil
			if opts.OnWaitFile != nil {
				opts.OnWaitFile()
			}
			if opts.Yield {
				return errYield
			}
		}
		if err := pause(ctx, closed, backoff); err != nil {
			return err
		}
		backoff = min(2*backoff, 10*time.Millisecond, pollInterval)
	}
}

// unusable is lockFile's answer when the pane file f cannot be locked or
// read (err). A file this process has used since it opened it, or opened
// first, is left: the call goes on without it (FileErr, the adapter's
// persist_failed), as every process does that cannot use it. A file put in
// place by another process's take-over and not used yet (reopened) is not:
// the other processes number their calls in it, and a number from the
// clock and this process's marks alone may go out at or below theirs, or
// above theirs without being in the file; the call is refused
// (ReopenError). The file is closed and the lease left without one, still
// followed: the next call opens the path again, and is refused the same
// way until it can lock and read what it opens.
func (c *Claim) unusable(call *Call, f *os.File, err error, reopened bool) error {
	ferr := &fileError{Path: f.Name(), Err: err}
	if !reopened {
		call.FileErr = ferr
		return nil
	}
	c.l.mu.Lock()
	if c.l.file == f {
		c.l.file = nil
	}
	c.l.followed = true
	c.l.mu.Unlock()
	f.Close()
	return &ReopenError{Path: f.Name(), Err: ferr}
}

// pause waits for d, or returns ctx's error or adapter.ErrClosed when ctx
// or closed ends first.
func pause(ctx, closed context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-closed.Done():
		return adapter.ErrClosed
	case <-t.C:
		return nil
	}
}

// takeOver takes over the pane file old, whose lock a process kept past
// the bound (see lockFile): the fresh file that takeOver put in its place
// becomes the process's pane file, holding the record read from old once
// the fresh one was in place (a number the stopped process writes into old
// after the mark is never sent; reading it again only raises the mark).
// It returns the fresh file, locked, with call.rec and call.f set.
func (c *Claim) takeOver(call *Call, old *os.File) (*os.File, error) {
	nf, err := takeOverFile(old.Name(), old)
	if err != nil {
		if err != errTakenOver && err != errNoTakeOver {
			call.FileErr = err
		}
		return nil, err
	}
	var b [recordLen + 1]byte
	n, _ := readRecordBytes(old, b[:])
	rec, perr := parseRecord(recordPart(b[:n]))
	// The copy in nf, read from old before the rename: when this second
	// read is torn by the stopped process's write (resumed in that
	// instant; the number it writes is never sent, it finds the mark), the
	// copy still holds the mark of what it sent.
	n, _ = readRecordBytes(nf, b[:])
	cp, cerr := parseRecord(recordPart(b[:n]))
	switch {
	case perr == nil && cerr == nil:
		rec.seq = max(rec.seq, cp.seq)
	case cerr == nil:
		rec = cp
	case perr != nil:
		// Torn or corrupt both times: the stopped process's mark is lost,
		// and the number comes from the clock and this process's marks,
		// as for any corrupt file.
		call.FileErr = &fileError{Path: old.Name(), Err: errors.New("is corrupt; rewriting it")}
		rec = record{}
	}
	var out [recordLen]byte
	rec.marshal(&out)
	nf.WriteAt(out[:], 0)
	c.l.mu.Lock()
	if c.l.file == old {
		c.l.file = nf
	}
	c.l.mu.Unlock()
	old.Close()
	call.f, call.rec = nf, rec
	return nf, nil
}

// takeOverFile is takeOver, and a seam for the tests, which make it fail
// with errNoTakeOver to see on Unix what a call does where a pane file is
// not taken over (Windows).
var takeOverFile = takeOver

// reopen opens the pane file again, after old was found replaced (taken
// over by another process), and makes it the process's pane file.
func (c *Claim) reopen(old *os.File) (*os.File, error) {
	nf, err := openPaneFile(c.dir, c.key)
	if err != nil {
		return nil, err
	}
	c.l.mu.Lock()
	switch c.l.file {
	case old, nil:
		c.l.file, c.l.followed = nf, true
	default:
		nf.Close() // opened again already
		nf = c.l.file
	}
	c.l.mu.Unlock()
	old.Close()
	return nf, nil
}

// behind reports whether a release of c that finds rec's busy call of
// another process in flight is refused once that call ends, whatever is in
// flight then: that call took the pane from c (rec names its live process
// as the holder), or it is that process's own release (rec names nobody;
// c's release would release nothing more). It is asked again of the record
// found once that call ended: a holder that exited meanwhile leaves its
// state to c's release, as decide says. Such a release waits for that
// one call only (Call.waitFor), as long as any call (its deadline, the
// release's wait), and not for the calls that the other processes start
// after it: without this, a quitting process's release, with its short
// budget, waited in line with them, only to be refused. When that call
// does not end in time and its process lives (stopped, or a slow
// workspace), the release is refused all the same: it never overtakes the
// call of a live process that holds the pane, whose state it would clear.
func (c *Claim) behind(rec record) bool {
	h := rec.holder
	return h != c.tok && !h.ours() && (h.IsZero() || h.alive())
}

// decide applies the cross-process rules to the record read. It reports
// whether the call may be made; when not, the claim is fenced.
func (c *Claim) decide(call *Call, op Op, fresh bool) bool {
	h := call.rec.holder
	if call.behind {
		c.supersede(true)
		call.By = byOtherProcess
		return false
	}
	switch {
	case h == c.tok, call.Overtook, h.IsZero(), h.ours(), op == Report && fresh, !h.alive():
		if op == Report && h != c.tok && !h.ours() {
			call.Claimed = true
		}
		return true
	}
	c.supersede(true)
	call.By = byOtherProcess
	return false
}

// take takes the next sequence number, under the file's lock when there
// is a file: max(clock, every number this process took + 1, the file's
// mark + 1), a mark further than maxMarkAhead beyond the clock being
// ignored (MarkErr). The additions saturate at 2^64-1.
func (call *Call) take() uint64 {
	l := call.c.l
	fileMark := call.rec.seq
	clock := call.clockMs
	if clock != 0 && fileMark > clock && fileMark-clock > uint64(maxMarkAhead/time.Millisecond) {
		call.MarkErr = fmt.Errorf("claim: the pane file's sequence mark %d is more than %s beyond the clock (%d): corrupt or planted, ignored", fileMark, maxMarkAhead, clock)
		fileMark = 0
	}
	l.mu.Lock()
	n := max(clock, inc(l.mark), inc(fileMark))
	l.mark = n
	l.mu.Unlock()
	call.rec.seq = n
	return n
}

func inc(n uint64) uint64 {
	if n == math.MaxUint64 {
		return n
	}
	return n + 1
}

// Seq returns the sequence number of the call's next exchange with the
// workspace, and whether the range is exhausted (2^64-1 was reached: the
// workspace will ignore the pane's reports until it forgets its mark). The
// first was taken and written to the pane file by Begin; each later one
// (a call that makes several exchanges) is taken and written under the
// file's lock in turn, so that it stays above every number another
// process took meanwhile. Seq is for a call that Begin let Send, with
// BeginOptions.Seq set.
//
// A later number is refused with ErrOvertaken when another process took
// the call over meanwhile (this process stopped past the call's deadline,
// or a release's short wait ran out): a number above the other process's
// would put this call's later exchange after that process's, undoing the
// fence. The claim is fenced; the caller sends nothing more in this call.
// A later number is refused with a *StuckError (ErrBusy) when the pane
// file's lock stays held until the call's deadline (a process stopped in
// the moment it holds it): a number that is not in the pane file could be
// taken again by the process that takes the file over next. The caller
// sends nothing more in this call either; nothing else changes.
func (call *Call) Seq() (seq uint64, saturated bool, err error) {
	switch {
	case !call.seqUsed:
		call.seqUsed = true
		seq = call.rec.seq
	case call.f != nil:
		// Never a number from memory: one not written in the pane file
		// could be taken again by the process that takes the file over
		// next (a process stopped holding the lock keeps it past the
		// call's deadline), and sent after it.
		if err := call.relock(call.deadline); err != nil {
			return 0, false, err
		}
		if b := call.rec.busy; call.lost || !b.IsZero() && b != call.tok {
			call.unlockFile()
			call.c.supersede(true)
			return 0, false, ErrOvertaken
		}
		seq = call.take()
		call.write()
		if takenOver(call.f) {
			// Taken over while this process held the lock (see Begin).
			call.unlockFile()
			call.lost = true
			call.c.supersede(true)
			return 0, false, ErrOvertaken
		}
		call.unlockFile()
	default:
		seq = call.take()
	}
	if seq > call.last {
		call.last = seq
	}
	return seq, seq == math.MaxUint64, nil
}

// ErrOvertaken is Seq's error when another process took the call over: the
// call must send nothing more.
var ErrOvertaken = errors.New("claim: another process took the call over")

// write stores the record, as one write at offset 0. Every writer holds
// the file's lock, and the record is one short line of fixed size, so no
// reader sees a half-written one and nothing needs truncating. There is
// no fsync: workspaces keep their marks in memory, so a machine crash that
// loses the file also lost theirs.
func (call *Call) write() bool {
	var b [recordLen]byte
	call.rec.marshal(&b)
	_, err := call.f.WriteAt(b[:], 0)
	if err != nil && call.FileErr == nil {
		call.FileErr = &fileError{Path: call.f.Name(), Err: err}
	}
	return err == nil
}

func (call *Call) unlockFile() {
	if call.f != nil {
		filelock.UnlockFile(call.f)
	}
}

// End ends the call. delivered says whether the workspace took it: a
// delivered release gives the pane up (in the process and in the pane
// file), waking an older claim of this process that waits for it. End must
// be called once per Begin.
//
// A call that holds the call lock (a second file beside the pane file,
// locked by Begin while it writes the call's mark and let go here) leaves
// the pane file as it is: another process that finds the call's mark tries
// the call lock, and a free one says that the call ended. So a report costs
// the pane file one short critical section, not two. Only a delivered
// release, once per claim, clears the mark and the holder under the pane
// file's lock. A call without the call lock (its file could not be opened,
// or a stopped process that was taken over still holds it) clears its mark
// under the pane file's lock, and when another process took the pane while
// it was in flight, the claim is fenced at once; otherwise the claim
// learns it at its next call or look at the file.
//
// End waits for the pane file's lock until the call's deadline, or for
// takeOverAfter once that has passed (a running process holds the lock
// for microseconds): a process stopped holding it keeps End no longer.
// The record is then left as it is: the other processes take the call's
// mark for a call that did not end by its deadline, and a released
// holder's for a live process's claim until this process exits.
func (call *Call) End(delivered bool) {
	c, l := call.c, call.c.l
	if !call.Send {
		return // Begin let the call lock go
	}
	released := delivered && call.op == Release
	if call.f != nil && (released || !call.held) && call.relock(call.endStop()) == nil {
		switch {
		case call.lost, call.rec.busy != call.tok:
			// Another process took the pane while this call was in flight.
			c.supersede(true)
		case released && call.rec.holder.ours():
			call.rec.busy, call.rec.until, call.rec.holder, call.rec.locked = token{}, 0, token{}, false
			call.write()
		default:
			call.rec.busy, call.rec.until, call.rec.locked = token{}, 0, false
			call.write()
		}
		call.unlockFile()
	}
	call.unlockCall()
	if released {
		c.claimed = false
	}
	// The call lock goes before the pane is freed: an older claim's watch, woken
	// by the free, finds no call in flight and may look at the file at once.
	l.done()
	if released {
		c.free()
	}
}

// endStop is how long End waits for the pane file's lock: until the
// call's deadline, or takeOverAfter from now once that has passed.
func (call *Call) endStop() time.Time {
	stop := time.Now().Add(takeOverAfter)
	if call.deadline.After(stop) {
		return call.deadline
	}
	return stop
}

// lockCall takes the call lock, if the call does not hold it yet, without
// waiting, and reports whether the call holds it.
func (call *Call) lockCall() bool {
	if !call.held && call.cf != nil {
		ok, err := filelock.TryLockFile(call.cf)
		call.held = ok && err == nil
	}
	return call.held
}

// unlockCall lets the call lock go, if the call holds it.
func (call *Call) unlockCall() {
	if call.held {
		filelock.UnlockFile(call.cf)
		call.held = false
	}
}

// relock takes the file's lock again and rereads the record, waiting
// until stop at most: a *StuckError when the lock was still held then (a
// process stopped in the moment it holds it), whose file the caller does
// not read or write. A file that another process took over meanwhile sets
// lost, and is not read.
func (call *Call) relock(stop time.Time) error {
	backoff := 50 * time.Microsecond
	start := time.Now()
	for {
		ok, err := filelock.TryLockFile(call.f)
		if err != nil {
			return &fileError{Path: call.f.Name(), Err: err}
		}
		if ok {
			break
		}
		if replaced(call.f) {
			// Taken over by another process while a third, which does not
			// move, holds the old file's lock: the call was overtaken.
			// Nothing is read or written (unlocking a lock not held does
			// nothing).
			call.lost = true
			return nil
		}
		if now := time.Now(); !now.Before(stop) {
			return &StuckError{Path: call.f.Name(), Held: now.Sub(start)}
		}
		time.Sleep(min(backoff, time.Until(stop))) // another process holds the lock for a moment
		backoff = min(2*backoff, 10*time.Millisecond)
	}
	var b [recordLen + 1]byte
	n, _ := readRecordBytes(call.f, b[:])
	if replacedRecord(b[:n]) {
		keep := recordPart(b[:n])
		if replaced(call.f) || !clearDeadTakeOver(call.f.Name(), call.f, len(keep)) {
			// Another process took the file over (or is taking it over)
			// while this one was stopped, or since its last number.
			call.lost = true
			return nil
		}
		n = len(keep)
	}
	rec, err := parseRecord(b[:n])
	if err != nil {
		rec = record{seq: call.rec.seq}
	}
	call.rec = rec
	return nil
}

// free gives the pane up within the process, if c holds it.
func (c *Claim) free() {
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.holder == c.tok.Gen {
		l.holder, l.owner = 0, nil
		close(l.freed)
		l.freed = make(chan struct{})
	}
}

// Close gives the pane up within the process without telling the
// workspace or changing the pane file (Release does that), so that an
// older claim may take it back, and stops the OnFree watch, waiting for a
// call of OnFree in progress. When it closes the last open claim of the
// pane in the process, the pane file and the call lock's file are closed
// (at once, or at the end of a call in flight). It is idempotent.
func (c *Claim) Close() {
	c.mu.Lock()
	first := !c.closed
	if first {
		c.closed = true
		close(c.stop)
	}
	c.mu.Unlock()
	c.free()
	c.wg.Wait()
	if !first {
		return
	}
	l := c.l
	l.mu.Lock()
	l.refs--
	last := l.refs == 0
	l.mu.Unlock()
	if last {
		select {
		case l.turn <- struct{}{}:
			l.done() // closes the files
		default:
			// A call is in flight: its end closes them.
		}
	}
}

// want records a Report of c (sent, or refused when superseded) and starts
// the OnFree watch if it does not run.
func (c *Claim) want(superseded bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.onFree == nil {
		return
	}
	c.wants = true
	if superseded && !c.superseded {
		c.superseded = true
		c.wake()
	}
	if !c.watching {
		c.watching = true
		c.wg.Add(1)
		go c.watchLoop()
	}
}

// Forget records that the pane is no longer wanted, without a release:
// reporting stopped (the host detached) and the release did not follow.
// The OnFree watch ends and no OnFree is due, so the pane is never taken
// back for a host that has stopped reporting; a later report wants it
// again. It is safe for concurrent use.
func (c *Claim) Forget() { c.unwant() }

// unwant records a Release of c (sent or refused): the watch ends and no
// OnFree is due.
func (c *Claim) unwant() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wants, c.superseded, c.named = false, false, false
	c.wake()
}

// supersede records that a newer claim took the pane from c: fenced when
// it is another process's. OnFree becomes due once the pane is free again.
func (c *Claim) supersede(fenced bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fenced = c.fenced || fenced
	if c.wants && !c.superseded {
		c.superseded = true
		c.wake()
	}
}

// wake wakes the watch, if it runs; c.mu is held.
func (c *Claim) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// watchLoop is the OnFree watch: while c wants the pane, it learns that a
// newer claim took it (told at once by a newer claim of this process;
// from the pane file, read every pollInterval, for another process), and
// calls OnFree once the pane is free again. It ends at Release or Close.
func (c *Claim) watchLoop() {
	defer c.wg.Done()
	var t *time.Ticker
	var tick <-chan time.Time // nil, never ready, while there is no pane file
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	for {
		c.l.mu.Lock()
		freed, f := c.l.freed, c.l.file
		c.l.mu.Unlock()
		if f != nil && t == nil {
			t = time.NewTicker(pollInterval)
			tick = t.C
		}
		c.mu.Lock()
		if c.closed || !c.wants {
			c.watching = false
			c.mu.Unlock()
			return
		}
		due := c.superseded
		c.mu.Unlock()
		switch by, lost, known := c.heldBy(f); {
		case !known:
		case by != "":
			if !due {
				c.supersede(by == byOtherProcess) // OnFree is due once the pane is free
			}
		case lost && !due:
			// Another process took the pane and let it go (released, or
			// exited) between two looks: it is free, and may be blank.
			c.supersede(false)
		case due && c.takeBack():
			c.onFree()
			if !c.tookYield() {
				continue // look again at once: the take-back may have been refused
			}
		}
		select {
		case <-c.stop:
		case <-c.kick:
		case <-freed:
		case <-tick:
		}
	}
}

// tookYield reports whether the take-back of the last OnFree yielded to
// another process's call, and forgets it.
func (c *Claim) tookYield() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	y := c.yielded
	c.yielded = false
	return y
}

// takeBack clears the due OnFree, and reports whether it is still due.
func (c *Claim) takeBack() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	due := !c.closed && c.wants && c.superseded
	c.superseded = false
	c.named = false // until the take-back's report names c again
	return due
}

// heldBy returns who else holds the pane as one look tells: byNewer (a
// newer claim of this process), byOtherProcess (the pane file f, when
// there is one, names another live process), or "" (nobody else: the pane
// is c's or free). lost is whether the pane is free although the file
// named c after its last report: another process took the pane and
// released it, or exited, since the last look. The file is read without
// its lock, as a hint: Begin decides again under the lock. known is false
// when the record read does not parse (being written, or corrupt), or a
// call of this process is in flight on the pane: the look tells nothing.
func (c *Claim) heldBy(f *os.File) (by string, lost, known bool) {
	c.l.mu.Lock()
	holder := c.l.holder
	c.l.mu.Unlock()
	if holder > c.tok.Gen {
		return byNewer, false, true
	}
	if f == nil {
		return "", false, true
	}
	// The file is read only while no call of this process is in flight on
	// the pane: between a call's lock and its write the file still names
	// the holder before it (another process's claim that this call is
	// taking over, or nobody), and c's named is not yet set, which would
	// read as a supersession and make OnFree send a report nobody asked
	// for. A call's End lets the call lock go: the next look (a tick, or the
	// kick and free that follow) reads what it wrote.
	select {
	case c.l.turn <- struct{}{}:
		defer c.l.done()
	default:
		return "", false, false
	}
	c.l.mu.Lock()
	f = c.l.file // a call may have replaced it since the caller looked
	c.l.mu.Unlock()
	if f == nil {
		return "", false, false
	}
	var b [recordLen + 1]byte
	n, err := readRecordBytes(f, b[:])
	switch {
	case !replacedRecord(b[:n]):
	case replaced(f):
		// Taken over by another process: the look goes to the file in
		// its place.
		if f, err = c.reopen(f); err != nil {
			return "", false, false
		}
		n, err = readRecordBytes(f, b[:])
	default:
		// Marked by a take-over under way, or whose taker died before
		// its rename: the record is still the pane's.
		n = len(recordPart(b[:n]))
	}
	if n == 0 && err != nil && err != io.EOF {
		// Not an empty file: a read that failed (on Windows, while
		// another process holds the file's lock) tells nothing.
		return "", false, false
	}
	rec, err := parseRecord(b[:n])
	if err != nil {
		return "", false, false
	}
	switch h := rec.holder; {
	case h == c.tok:
		return "", false, true
	case h.IsZero(), !h.ours() && !h.alive():
		c.mu.Lock()
		named := c.named
		c.mu.Unlock()
		return "", named, true
	case h.ours():
		return "", false, true
	}
	return byOtherProcess, false, true
}
