package progstatus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/progstatus/probe"
	"github.com/panestate/panestate/internal/builtin"
)

// Driver opens Program Status adapters. Its zero value is ready to use and
// safe for concurrent use: everything it needs arrives in [adapter.Params].
//
// A host whose own UI already writes program status (Bubble Tea v2's
// View.ProgramStatus, Charm's ansi.SetProgramStatus) must not have a second
// writer in its tab: it replaces the built-in driver in the registry's
// drivers (registry.Builtin()["progstatus"]) with one that says so, either
// HostWrites, and the adapter stays off, or View, and the host's UI writes
// panestate's record itself (docs/progstatus.md shows both).
type Driver struct {
	// HostWrites says that the host's UI writes the tab's program status
	// itself and wants none from panestate: the adapter is then inactive
	// wherever it would run, and Explain says why.
	HostWrites bool
	// View, when set, makes the host's UI the one writer of panestate's
	// record: the adapter writes nothing to the terminal and hands each
	// record it would have written to View instead, and nil for the
	// goodbye, for the host to put into its own View (a Bubble Tea host
	// converts it to a tea.ProgramStatus field by field, and its renderer
	// then writes exactly the bytes of [Status.Sequence]). The adapter then
	// needs no terminal, is active wherever the host may claim a pane
	// (the host's UI decides where its status goes), and wraps nothing for
	// tmux. View is called from Report and Release, one call at a time and
	// in order; it must not block for long (Bubble Tea's Program.Send
	// does not) and must not call back into the registry.
	View func(*Status)
}

var (
	_ adapter.Driver        = Driver{}
	_ adapter.SettingsOwner = Driver{}
	_ adapter.Checker       = Driver{}
	_ adapter.EnvScrubber   = Driver{}
)

// Settings returns true and no keys: the adapter turns on by itself only
// where the host's probe found the protocol (or the environment names a
// terminal known to have it), and starts nothing elsewhere; its section has
// no key besides "enabled".
func (Driver) Settings() (enabledByDefault bool, keys []string) { return true, nil }

// validateSettings returns the error Open would return for section: the
// "progstatus" section has no key besides "enabled", so only a section that
// is not a JSON object is wrong. It does no I/O.
func validateSettings(section json.RawMessage) error {
	if len(strings.TrimSpace(string(section))) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(section, &m); err != nil {
		return fmt.Errorf("progstatus: settings: %w", err)
	}
	return nil
}

// ScrubEnv removes the probe's result ([probe.EnvVar]) from a tool
// subprocess's environment: it describes the host's terminal as the host
// found it, and a child has no business acting on it.
func (Driver) ScrubEnv(env adapter.Env) adapter.Env {
	return env.Without(func(k string) bool { return k == probe.EnvVar })
}

// Check returns what Open would say without opening anything: an error
// wrapping [adapter.ErrInactive] that says why the adapter does not apply,
// else the error of a section that is not an object, else nil. It reads
// only p.Terminal (whether it is nil), p.Host, p.Env, p.Forced and
// p.Settings.
func (d Driver) Check(p adapter.Params) error {
	if _, err := d.activation(p); err != nil {
		return err
	}
	return validateSettings(p.Settings)
}

// how says how the adapter came to be active, for Explain.
type how struct {
	why  string // "the terminal answered the OSC 7501 query (probe)", ...
	tmux bool   // inside tmux: every sequence is wrapped for DCS passthrough
	view bool   // Driver.View receives the records; nothing is written
}

// activation decides whether the adapter applies. The order matters: what
// makes writing useless or harmful (no terminal, a host that may not claim
// a pane, Herdr, TERM=dumb) holds even when forced; then tmux, where only
// the person can turn it on; then the probe's answer, which is a fact about
// this terminal and outranks a guess from the environment; then the
// environment; then the person's word.
func (d Driver) activation(p adapter.Params) (how, error) {
	inactive := func(format string, args ...any) (how, error) {
		return how{}, fmt.Errorf("progstatus: %w: "+format, append([]any{adapter.ErrInactive}, args...)...)
	}
	switch {
	case d.HostWrites:
		return inactive("the host's UI writes the tab's program status itself (progstatus.Driver.HostWrites), and a record is never written by two programs")
	case d.View != nil:
		if err := builtin.CheckHost(p.Host); err != nil {
			return how{}, fmt.Errorf("progstatus: %w", err)
		}
		return how{why: "the host's UI writes panestate's record in its own view (progstatus.Driver.View)", view: true}, nil
	}
	if p.Terminal == nil {
		return inactive("the host handed over no terminal (registry.Options.Terminal is nil)")
	}
	if err := builtin.CheckHost(p.Host); err != nil {
		return how{}, fmt.Errorf("progstatus: %w", err)
	}
	env := p.Env
	if where, ok := readsFromPanes(env); ok {
		return paneReader(p, where)
	}
	switch {
	case env.Get("HERDR_ENV") == "1":
		return inactive("inside a Herdr pane (HERDR_ENV=1): Herdr 0.9 does not read OSC 7501, and the herdr adapter reports there")
	case env.Get("TERM") == "dumb":
		return inactive("TERM is dumb: the terminal interprets no escape sequence, so it would print this one")
	case env.Get("TMUX") != "":
		if p.Forced {
			return how{why: "progstatus.enabled is true", tmux: true}, nil
		}
		return inactive("inside tmux (TMUX is set), which drops OSC 7501 and does not pass the probe's answer back; " +
			"set progstatus.enabled to true and tmux's allow-passthrough to on to report to the terminal tmux runs in")
	case env.Get("STY") != "":
		if !p.Forced {
			return inactive("inside GNU screen (STY is set), which does not pass OSC 7501 on; set progstatus.enabled to true to force it")
		}
	}
	if p.Forced {
		return how{why: "progstatus.enabled is true"}, nil
	}
	switch v := env.Get(probe.EnvVar); v {
	case "1":
		return how{why: "the terminal answered the OSC 7501 query (" + probe.EnvVar + "=1)"}, nil
	case "0":
		return inactive("the terminal did not answer the OSC 7501 query (%s=0); set progstatus.enabled to true to force it", probe.EnvVar)
	case "":
	default:
		return inactive("%s=%s is neither 1 nor 0; set progstatus.enabled to true to force it", probe.EnvVar, adapter.Bound(v, 20))
	}
	if t, ok := knownTerminal(env); ok {
		return how{why: t}, nil
	}
	return inactive("the host did not probe the terminal (%s is unset) and its environment names none known to read OSC 7501; "+
		"have the host run the probe, or set progstatus.enabled to true to force it", probe.EnvVar)
}

// knownTerminal names the terminal when its environment alone shows that
// it reads OSC 7501, with the same care the terminal adapter takes for OSC
// 9;4: only a terminal whose own source or tests show the support, from the
// first version that has it. No entry qualifies yet (docs/progstatus.md
// says why for iTerm2, libghostty and the rest), so only the probe and the
// setting turn the adapter on.
func knownTerminal(adapter.Env) (string, bool) { return "", false }

// Open returns an [Adapter] that writes to p.Terminal.
//
// It returns an error wrapping [adapter.ErrInactive] when p.Terminal is nil,
// when the host is not an interactive root session, inside Herdr, with
// TERM=dumb, and, unless progstatus.enabled is the literal true (p.Forced),
// inside tmux or GNU screen, or when neither the host's probe nor
// the environment shows the protocol (see the package documentation).
// Otherwise it returns a plain error for a section that is not an object.
// Open writes nothing. Inside tmux it runs one tmux client, bounded by ctx
// and by half a second, to read the pane's allow-passthrough for Explain
// (and a diagnostic when it is not on); elsewhere it starts nothing, and
// ctx is only checked for cancellation.
func (d Driver) Open(ctx context.Context, p adapter.Params) (adapter.Adapter, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("progstatus: open: %w", err)
	}
	h, err := d.activation(p)
	if err != nil {
		return nil, err
	}
	if err := validateSettings(p.Settings); err != nil {
		return nil, err
	}
	app := appName(p.App)
	seqs, err := sequences(app, h.tmux)
	if err != nil {
		return nil, err
	}
	a := &Adapter{out: p.Terminal, how: h, seqs: seqs, statuses: statuses(app)}
	if h.view {
		a.view = d.View
	}
	if h.tmux {
		a.passthrough = passthrough(ctx, p.Env)
		if a.passthrough != "on" && p.Diagnose != nil {
			p.Diagnose(adapter.NewDiagnostic(p.Name, adapter.KindUnsupported,
				"inside tmux, allow-passthrough is %s: tmux drops the wrapped sequences unless it is on (set -g allow-passthrough on)", a.passthrough))
		}
	}
	return a, nil
}

// record is what the adapter's record in the terminal says.
type record uint8

const (
	recordNone       record = iota // nothing written, or removed by the goodbye
	recordIdle                     // idle before any work
	recordWorking                  // working
	recordPermission               // blocked, waiting for approval
	recordQuestion                 // blocked, waiting for input
	recordAttention                // blocked, a workflow needs attention
	recordBlocked                  // blocked with no message
	recordDone                     // idle once a turn has ended
	numRecords
)

var recordNames = [numRecords]string{"nothing", "idle", "working", "blocked (permission)",
	"blocked (question)", "blocked (workflow needs attention)", "blocked", "done"}

// sequences builds, once, the sequence for every record and the goodbye
// (index recordNone), wrapped for tmux when asked.
//
// Each report addresses the record named after the application (id=app),
// not the root record, which belongs to whoever owns the tab (a shell
// integration, the agent's own UI): the goodbye, state=clear:id=<app>, then
// removes that record alone. A bare state=clear would remove every record
// in the terminal, another program's included (a build running in the
// background of the same shell), and the root record cannot be cleared
// without it. The bytes are those of Charm's encoder for the same record
// ([Status.Sequence]), so that a Bubble Tea host that writes panestate's
// record through its own View writes what the adapter would have.
func sequences(app string, tmux bool) ([numRecords][]byte, error) {
	var seqs [numRecords][]byte
	for r, st := range statuses(app) {
		seq := st.Sequence()
		if seq == nil {
			return seqs, fmt.Errorf("%w: %+v", errEncode, st)
		}
		if tmux {
			seq = wrapTmux(seq)
		}
		seqs[r] = seq
	}
	return seqs, nil
}

// Adapter reports the agent's state as an OSC 7501 record. Create one with
// [Driver.Open]. All its methods are safe for concurrent use: Report and
// Release take turns, and Details never waits for them. After Close
// returns, Report and Release return [adapter.ErrClosed] and write nothing.
type Adapter struct {
	out         io.Writer
	how         how
	seqs        [numRecords][]byte // read-only
	statuses    [numRecords]Status // read-only: what seqs say
	view        func(*Status)      // Driver.View, when it receives the records
	passthrough string             // inside tmux: allow-passthrough as Open found it

	// mu serialises Report and Release, and so the writes, and guards
	// shown, worked and last. Close and Details never take it.
	mu     sync.Mutex
	shown  record            // what the terminal was last sent
	worked bool              // a working or blocked report was seen: idle is done now
	kids   map[string]Status // the child records shown, by id
	last   *write            // the latest write, which may still be under way

	inflight  atomic.Pointer[write] // last, for Close
	closed    atomic.Bool
	shownView atomic.Uint32
	writes    atomic.Int64
}

var (
	_ adapter.Adapter  = (*Adapter)(nil)
	_ adapter.Releaser = (*Adapter)(nil)
	_ adapter.Closer   = (*Adapter)(nil)
	_ adapter.Detailer = (*Adapter)(nil)
)

// write is one Write call on its own goroutine, so that a terminal that
// stopped reading (a full pty, a tty stopped with Ctrl-S) holds up that
// goroutine rather than Report beyond its ctx. The goroutine ends when the
// Write returns: when the terminal takes the bytes, or its file is closed.
type write struct {
	done chan struct{} // closed when Write returned
	err  error         // Write's error; read after done
}

// recordFor maps a report to the record it shows. "A turn has ended" is
// decided from what this adapter has seen: an idle report after a working
// or blocked one is done, and so is one whose reason says the turn
// completed or failed (a phase host says so even when the adapter opened
// after the work); any other idle is idle.
func (a *Adapter) recordFor(r adapter.Report) record {
	switch r.State {
	case adapter.StateWorking:
		return recordWorking
	case adapter.StateBlocked:
		switch r.Message {
		case adapter.MessageWaitingForApproval:
			return recordPermission
		case adapter.MessageWaitingForInput:
			return recordQuestion
		case adapter.MessageWorkflowNeedsAttention:
			return recordAttention
		}
		return recordBlocked
	}
	if a.worked || r.Reason == adapter.ReasonCompleted || r.Reason == adapter.ReasonError {
		return recordDone
	}
	return recordIdle
}

// Report writes the record for r, in one Write: working; blocked with
// kind=permission or kind=question and the fixed message; done once a turn
// has ended; idle before any work. A report that maps to the record already
// sent writes nothing, so that a done the person dismissed in the terminal
// does not come back. r.Reason never leaves the process, and r.Message only
// as one of its fixed texts.
//
// With ctx already done Report writes nothing and returns ctx's error. When
// the report has been withdrawn ([adapter.Withdrawn]) before its Write
// started, it writes nothing and returns an error wrapping
// [adapter.ErrWithdrawn]. A Write that has started is waited for until the
// terminal takes it or ctx ends; then Report returns ctx's error, the
// Write stays under way, and the next Report or Release waits for it
// first, so sequences never interleave.
func (a *Adapter) Report(ctx context.Context, r adapter.Report) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return adapter.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("progstatus: report: %w", err)
	}
	rec := a.recordFor(r)
	if rec != a.shown {
		if err := a.showLocked(ctx, rec, true); err != nil {
			return err
		}
		if r.State != adapter.StateIdle {
			a.worked = true
		}
		a.setShownLocked(rec)
	}
	if a.view != nil {
		return nil // the host's View shows the parent's record alone
	}
	return a.childrenLocked(ctx, &r.Children)
}

// Release writes the goodbye, state=clear:id=<app>, which removes this
// adapter's record and no other, when reporting stops for good (Detach,
// or the adapter being turned off). It writes it even when nothing was
// reported, since a predecessor replaced by a settings change may have
// left a record. It waits for a Write still under way first. ctx bounds
// the wait: when it ends, Release returns its error, and a goodbye already
// handed to Write still reaches the terminal when it reads again.
func (a *Adapter) Release(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return adapter.ErrClosed
	}
	if err := a.showLocked(ctx, recordNone, false); err != nil {
		return err
	}
	clear(a.kids) // the parent's clear removed every record beneath it
	a.worked = false
	a.setShownLocked(recordNone)
	return nil
}

// Close marks the adapter closed and waits, bounded by ctx, for a Write
// still under way (a terminal that stopped reading); it returns ctx's error
// if that Write has not returned by then, whose goroutine then ends when
// the terminal takes the bytes or is closed. It writes nothing, holds no
// timer or file, and is idempotent.
func (a *Adapter) Close(ctx context.Context) error {
	a.closed.Store(true)
	if w := a.inflight.Load(); w != nil {
		select {
		case <-w.done:
		case <-ctx.Done():
			return fmt.Errorf("progstatus: close: the terminal has not taken the last sequence: %w", ctx.Err())
		}
	}
	return nil
}

// Details returns how the adapter turned on, what the terminal was last
// sent, whether sequences are wrapped for tmux, and the number of writes.
func (a *Adapter) Details() map[string]string {
	m := map[string]string{
		"active because": a.how.why,
		"record":         recordNames[a.shownView.Load()],
		"writes":         fmt.Sprint(a.writes.Load()),
	}
	if a.how.tmux {
		m["tmux"] = "sequences wrapped in DCS passthrough; tmux forwards them only with `set -g allow-passthrough on` (tmux 3.3 or later); allow-passthrough was " + a.passthrough + " when reporting started"
	}
	return m
}

// errStalled is wrapped when a Write is still under way from an earlier
// call.
var errStalled = errors.New("the terminal has not taken the previous sequence")

// writeLocked writes seq in one Write call and returns once the terminal
// has taken it, or ctx has ended. withdrawable says the caller is Report,
// whose sequence is not written once the report is withdrawn. a.mu is
// held.
func (a *Adapter) writeLocked(ctx context.Context, seq []byte, withdrawable bool) error {
	var withdrawn <-chan struct{}
	if withdrawable {
		withdrawn = adapter.Withdrawn(ctx)
	}
	if w := a.last; w != nil {
		select {
		case <-w.done:
		case <-withdrawn:
			return fmt.Errorf("progstatus: write: %w", adapter.ErrWithdrawn)
		case <-ctx.Done():
			return fmt.Errorf("progstatus: write: %w: %w", errStalled, ctx.Err())
		}
		a.last = nil
	}
	select {
	case <-withdrawn:
		return fmt.Errorf("progstatus: write: %w", adapter.ErrWithdrawn)
	default:
	}
	w := &write{done: make(chan struct{})}
	a.last = w
	a.inflight.Store(w)
	go func() {
		defer close(w.done)
		_, w.err = a.out.Write(seq)
	}()
	select {
	case <-w.done:
	case <-ctx.Done():
		return fmt.Errorf("progstatus: write: the terminal is not taking the sequence: %w", ctx.Err())
	}
	a.last = nil
	if w.err != nil {
		return fmt.Errorf("progstatus: write: %w", w.err)
	}
	a.writes.Add(1)
	return nil
}

// showLocked shows rec: hands it to the host's View when the host writes
// the record, else writes its sequence (writeLocked). a.mu is held.
func (a *Adapter) showLocked(ctx context.Context, rec record, withdrawable bool) error {
	if a.view == nil {
		return a.writeLocked(ctx, a.seqs[rec], withdrawable)
	}
	if withdrawable {
		select {
		case <-adapter.Withdrawn(ctx):
			return fmt.Errorf("progstatus: view: %w", adapter.ErrWithdrawn)
		default:
		}
	}
	var st *Status
	if rec != recordNone {
		s := a.statuses[rec]
		st = &s
	}
	a.view(st)
	a.writes.Add(1)
	return nil
}

// setShownLocked records what the terminal was sent. a.mu is held.
func (a *Adapter) setShownLocked(r record) {
	a.shown = r
	a.shownView.Store(uint32(r))
}
