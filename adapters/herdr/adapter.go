package herdr

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// Adapter reports to the Herdr pane the process runs in. It is returned by
// [Driver.Open]; see the package documentation for what it does.
//
// Report, Release and Close may be called from any goroutine; calls are
// serialised, so a Report waits for an in-flight one. SetSession and Explain
// are safe for concurrent use with everything.
type Adapter struct {
	// Fixed at Open.
	name     string
	log      hclog.Logger
	diagnose func(adapter.Diagnostic)
	clock    func() time.Time
	bin      string
	pane     string
	socket   string
	source   string
	label    string
	timeout  time.Duration
	childEnv []string
	key      paneKey
	stateDir string
	own      owner // this adapter in the lease table

	dirMade bool // stateDir was created; used by nextSeq, under op

	done context.Context    // cancelled by Close
	stop context.CancelFunc // cancels done
	op   chan struct{}      // held by a Report, Release or Close in progress

	mu           sync.Mutex
	closed       bool
	rawIdent     session.Identity // as last given
	ident        session.Identity // what may be sent: unusable parts dropped
	identGen     uint64           // bumped when the identity changes
	identPending bool             // ident goes out with reports until one is delivered
	lastSeq      uint64
	lastOp       Op
	lastState    string // state of the last delivered report
	counts       map[adapter.Kind]uint64
	emitted      map[adapter.Kind]bool // kinds already sent to Diagnose in this claim
}

// Guards: Adapter implements the optional interfaces it means to.
var (
	_ adapter.Adapter      = (*Adapter)(nil)
	_ adapter.Releaser     = (*Adapter)(nil)
	_ adapter.Closer       = (*Adapter)(nil)
	_ adapter.SessionAware = (*Adapter)(nil)
	_ adapter.Explainer    = (*Adapter)(nil)
)

// Report sends r to Herdr with `herdr pane report-agent` and returns when
// the CLI has answered, failed, or been killed.
//
// The first Report claims the pane for this adapter and retires an older
// adapter of this process that held it (waiting for that adapter's
// in-flight call, sending no release). If a newer adapter has claimed the
// pane, Report sends nothing, emits one stale_owner diagnostic and returns
// nil: there is nothing to retry.
//
// ctx bounds the call together with the adapter's timeout. When ctx is
// cancelled or its deadline passes, the child is killed and an error
// wrapping ctx's error is returned, with no diagnostic (only the adapter's
// own deadline is a timeout). A call that did
// not deliver returns an error wrapping a [*CallError] (and emits a
// diagnostic of its kind, at most once per kind and claim), so the caller
// may try again later. After Close, Report returns [adapter.ErrClosed].
func (a *Adapter) Report(ctx context.Context, r adapter.Report) error {
	if err := a.enter(ctx); err != nil {
		return err
	}
	defer a.leave()
	if !r.Valid() {
		return fmt.Errorf("herdr: invalid report %s", r)
	}
	return a.deliver(ctx, OpReport, r)
}

// Release hands the pane back with `herdr pane release-agent`, after any
// in-flight call for the pane has finished, using a sequence number above
// every earlier one, and once delivered frees the pane's lease. A later
// Report claims the pane afresh.
//
// A retired adapter (one whose pane a newer adapter claimed) sends nothing,
// emits one stale_owner diagnostic and returns nil. An adapter that never
// reported still sends the release when no newer adapter holds the pane:
// that covers a successor opened by a settings reload and released before
// its first report, whose predecessor's state would otherwise stay on the
// pane. Herdr ignores a release by a source or label that does not hold the
// pane, so the release is harmless otherwise. "pane_not_found" counts as
// released.
//
// ctx bounds the call as in Report. After Close, Release returns
// [adapter.ErrClosed].
func (a *Adapter) Release(ctx context.Context) error {
	if err := a.enter(ctx); err != nil {
		return err
	}
	defer a.leave()
	if err := a.deliver(ctx, OpRelease, adapter.Report{}); err != nil {
		return err
	}
	leases.free(a.own)
	return nil
}

// Close stops the adapter: an in-flight call is killed and waited for
// (bounded by ctx), a Report or Release still waiting for another adapter's
// call on the pane gives up with [adapter.ErrClosed], and the pane's lease
// is freed without telling Herdr, so that a successor may take over. Close is idempotent and safe for
// concurrent use; after it, Report and Release return [adapter.ErrClosed].
func (a *Adapter) Close(ctx context.Context) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	a.mu.Unlock()
	a.stop()
	defer leases.free(a.own)
	select {
	case a.op <- struct{}{}:
		<-a.op
		return nil
	case <-ctx.Done():
		return fmt.Errorf("herdr: close: waiting for the in-flight call: %w", ctx.Err())
	}
}

// SetSession sets the session identity sent with reports. A changed
// identity is sent with every report until one is delivered; an identical
// one changes nothing. An id, or a path, that the Herdr CLI would refuse or
// swallow (not valid UTF-8, control characters, a global option such as
// --session) is dropped with one invalid_value diagnostic; a path that is not
// absolute is not sent. SetSession is safe for concurrent use; after Close
// it does nothing.
func (a *Adapter) SetSession(id session.Identity) {
	a.mu.Lock()
	if a.closed || id == a.rawIdent {
		a.mu.Unlock()
		return
	}
	bad := a.setIdentityLocked(id)
	a.mu.Unlock()
	if bad != "" {
		a.diag(adapter.KindInvalidValue, "%s", bad)
	}
}

// setIdentityLocked stores id and arms sending it. It returns what was
// dropped, or "". a.mu is held, or a is not yet shared.
func (a *Adapter) setIdentityLocked(id session.Identity) (dropped string) {
	a.rawIdent = id
	clean := id
	if clean.ID != "" {
		if err := checkArg(clean.ID); err != nil {
			dropped = "session id dropped: " + err.Error()
			clean.ID = ""
		}
	}
	if clean.Path != "" {
		if err := checkArg(clean.Path); err != nil {
			if dropped != "" {
				dropped += "; "
			}
			dropped += "session path dropped: " + err.Error()
			clean.Path = ""
		} else if !isAbsPath(clean.Path) {
			clean.Path = ""
		}
	}
	a.ident = clean
	a.identGen++
	a.identPending = clean != session.Identity{}
	return dropped
}

// Explain returns what the adapter knows, for registry.Explain: the pane,
// source, agent label, binary, socket, timeout, the lease state (holder,
// retired, free or closed), the last sequence number and delivered state,
// the persistence directory, and a counter per diagnostic kind
// ("diag.<kind>"). It is safe for concurrent use.
func (a *Adapter) Explain() map[string]string {
	lease := "free"
	switch {
	case leases.holds(a.own):
		lease = "holder"
	case leases.retired(a.own):
		lease = "retired"
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		lease = "closed"
	}
	persist := a.stateDir
	if persist == "" {
		persist = "(none)"
	}
	m := map[string]string{
		"pane":        a.pane,
		"source":      a.source,
		"agent":       a.label,
		"bin":         a.bin,
		"socket":      a.socket,
		"timeout":     a.timeout.String(),
		"lease":       lease,
		"last_seq":    strconv.FormatUint(a.lastSeq, 10),
		"last_state":  a.lastState,
		"last_op":     "(none)",
		"persist_dir": persist,
		"session":     "none",
	}
	if a.ident != (session.Identity{}) {
		m["session"] = "delivered"
		if a.identPending {
			m["session"] = "pending"
		}
	}
	if a.lastState == "" {
		m["last_state"] = "(none)"
	}
	if a.lastOp != 0 {
		m["last_op"] = a.lastOp.String()
	}
	kinds := make([]string, 0, len(a.counts))
	for k := range a.counts {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		m["diag."+k] = strconv.FormatUint(a.counts[adapter.Kind(k)], 10)
	}
	return m
}

// enter admits one Report or Release at a time; it fails after Close.
func (a *Adapter) enter(ctx context.Context) error {
	if a.isClosed() {
		return adapter.ErrClosed
	}
	select {
	case a.op <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if a.isClosed() {
		<-a.op
		return adapter.ErrClosed
	}
	return nil
}

func (a *Adapter) leave() { <-a.op }

func (a *Adapter) isClosed() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closed
}

// deliver claims the pane if needed, waits for its child slot, takes a
// sequence number and runs one CLI call.
func (a *Adapter) deliver(ctx context.Context, op Op, r adapter.Report) error {
	l, res := leases.claim(a.own)
	switch res {
	case claimStale:
		a.staleOwner(op)
		return nil
	case claimNew:
		a.startClaim()
		a.log.Debug("herdr pane claimed", "pane", a.pane, "source", a.source)
	}
	if err := l.acquire(ctx, a.done); err != nil {
		if errors.Is(err, adapter.ErrClosed) {
			return err
		}
		return fmt.Errorf("herdr: %s: waiting for the pane: %w", op, err)
	}
	defer l.releaseSlot()
	if !leases.holds(a.own) { // retired while waiting
		a.staleOwner(op)
		return nil
	}

	seq, perr := a.nextSeq()
	if perr != nil {
		a.diag(adapter.KindPersistFailed, "sequence number not saved: %v", perr)
	}
	args, identGen, withIdent := a.argv(op, r, seq)
	err := a.call(ctx, op, args)
	var ce *CallError
	if op == OpRelease && errors.As(err, &ce) && ce.Code == "pane_not_found" {
		err = nil // the pane is gone: nothing left to release
	}

	a.mu.Lock()
	a.lastSeq, a.lastOp = seq, op
	if err == nil {
		if op == OpRelease {
			a.lastState = "released"
		} else {
			a.lastState = r.State.String()
		}
		if withIdent && identGen == a.identGen {
			a.identPending = false
		}
	}
	a.mu.Unlock()

	switch {
	case err == nil:
		if op == OpRelease {
			a.log.Debug("herdr pane released", "seq", seq)
		} else {
			a.log.Debug("herdr call delivered", "op", op, "state", r.State.String(), "seq", seq)
		}
		return nil
	case errors.As(err, &ce):
		a.diag(ce.Kind, "%s: %s", op, ce.Detail())
		return err
	case errors.Is(err, adapter.ErrClosed):
		return err
	default:
		return fmt.Errorf("herdr: %s: %w", op, err)
	}
}

// argv builds the CLI arguments: every value its own element, no "=" forms,
// no "--". It reports the identity generation it used and whether it added
// the session identity.
func (a *Adapter) argv(op Op, r adapter.Report, seq uint64) (args []string, identGen uint64, withIdent bool) {
	args = make([]string, 0, 17)
	args = append(args, "pane", op.String(), a.pane, "--source", a.source, "--agent", a.label)
	if op == OpRelease {
		return append(args, "--seq", strconv.FormatUint(seq, 10)), 0, false
	}
	args = append(args, "--state", r.State.String())
	if m := r.Message.String(); m != "" {
		args = append(args, "--message", m)
	}
	args = append(args, "--seq", strconv.FormatUint(seq, 10))
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.identPending {
		return args, a.identGen, false
	}
	if a.ident.ID != "" {
		args = append(args, "--agent-session-id", a.ident.ID)
	}
	if a.ident.Path != "" {
		args = append(args, "--agent-session-path", a.ident.Path)
	}
	return args, a.identGen, true
}

// startClaim resets what is per claim: diagnostics are reported afresh and
// the session identity is sent again.
func (a *Adapter) startClaim() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.emitted)
	a.identPending = a.ident != session.Identity{}
}

func (a *Adapter) staleOwner(op Op) {
	a.diag(adapter.KindStaleOwner, "%s not sent: pane %s was taken over by a newer adapter", op, a.pane)
}

// diag counts a diagnostic and sends it to Diagnose unless one of its kind
// was already sent in this claim.
func (a *Adapter) diag(kind adapter.Kind, format string, args ...any) {
	a.mu.Lock()
	a.counts[kind]++
	seen := a.emitted[kind]
	a.emitted[kind] = true
	a.mu.Unlock()
	if !seen {
		a.diagnose(adapter.NewDiagnostic(a.name, kind, format, args...))
	}
}
