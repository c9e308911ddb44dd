package herdr

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/calls"
	"github.com/panestate/panestate/internal/owner"
	"github.com/panestate/panestate/session"
)

// Adapter reports to the Herdr pane the process runs in. It is returned by
// [Driver.Open]; see the package documentation for what it does.
//
// Report, Release and Close may be called from any goroutine; calls are
// serialised, so a Report waits for an in-flight one. SetSession, Details
// and RefreshInterval are safe for concurrent use with everything.
type Adapter struct {
	// Fixed at Open.
	log      hclog.Logger
	clock    func() time.Time
	bin      string
	pane     string
	socket   string
	source   string
	label    string
	timeout  time.Duration
	refresh  time.Duration // 0: off
	mode     transportMode
	cli      *cliTransport
	sock     *socketTransport               // nil when mode is cli
	peer     func(net.Conn) error           // refuses a server of another user; nil: no check (Windows)
	ownerOf  func(path string) (int, error) // the socket file's user, for probePeer
	stateDir string
	owner    *owner.Owner       // this adapter's claim of the pane
	gate     *calls.Gate        // one Report, Release or Close at a time
	closing  context.Context    // gate.Closing(): cancelled by Close
	diags    *calls.Diagnostics // once per kind and claim

	// Used only by the call in progress (under op).
	pinged     bool       // the server answered a ping in this claim
	probed     bool       // the cli mode checked the server's user in this claim
	serverFile serverFile // at the socket path at the last report, if serverSeen
	serverSeen bool

	mu           sync.Mutex
	abandon      context.CancelFunc // cancels the Report in flight, if any
	withdraw     func()             // withdraws the Report in flight, if any
	rawIdent     session.Identity   // as last given
	ident        session.Identity   // what may be sent: unusable parts dropped
	identGen     uint64             // bumped when the identity changes
	identPending bool               // ident goes out with reports until one is delivered
	resume       []string           // the validated resume argv, or nil
	resumePend   bool               // resume goes out (once allowed) until delivered
	resumeOff    bool               // Herdr refused the argv in this claim
	held         bool               // a report was delivered in this claim
	saturated    bool               // sequence numbers reached 2^64-1
	server       pong               // the last ping's answer, if any
	route        transportMode      // the transport of the last call
	via          transportMode      // the transport that last delivered in this claim; auto: none
	routed       bool               // route is set
	lastSeq      uint64
	lastOp       Op
	lastState    string // state of the last delivered report
}

// Guards: Adapter implements the optional interfaces it means to.
var (
	_ adapter.Adapter      = (*Adapter)(nil)
	_ adapter.Releaser     = (*Adapter)(nil)
	_ adapter.Closer       = (*Adapter)(nil)
	_ adapter.SessionAware = (*Adapter)(nil)
	_ adapter.Detailer     = (*Adapter)(nil)
	_ adapter.Refresher    = (*Adapter)(nil)
	_ adapter.PaneOwner    = (*Adapter)(nil)
)

// Report sends r to Herdr (pane.report_agent, over the socket or with
// `herdr pane report-agent`) and returns when Herdr has answered, the call
// failed, or it was abandoned.
//
// The first Report claims the pane: every older claim of it, in this
// process or another, becomes stale. While a newer claim holds the pane,
// Report sends nothing, emits one stale_owner diagnostic and returns nil.
//
// ctx bounds the call together with the adapter's timeout. A report
// withdrawn ([adapter.Withdrawn]) before its request left the process
// returns an error wrapping [adapter.ErrWithdrawn] at once; one that may
// have left is waited for, so that a release cannot be overtaken by it.
// When ctx ends, the call is abandoned at once (a CLI child's process
// group is killed) and ctx's error is returned without a diagnostic. A
// call that did not deliver returns a [*CallError] (and one diagnostic of
// its kind per claim), so the caller may try again. After Close, Report
// returns [adapter.ErrClosed].
func (a *Adapter) Report(ctx context.Context, r adapter.Report) error {
	// The registry's withdrawal means reporting stops: once this Report is
	// done, the pane is not wanted any more (no take-back), whether or not
	// the release follows in its budget. Under the gate, so that a
	// take-back waiting for it finds the pane unwanted.
	stopping := adapter.Withdrawn(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ctx, withdraw, stop := withdrawable(ctx)
	defer stop()
	if err := a.gate.Enter(ctx); err != nil {
		calls.IfStopped(stopping, a.owner.Forget)
		if errors.Is(err, adapter.ErrWithdrawn) {
			return fmt.Errorf("herdr: %s: %w", OpReport, errWithdrawn)
		}
		return err
	}
	defer a.gate.Leave()
	defer calls.IfStopped(stopping, a.owner.Forget) // before Leave
	if !r.Valid() {
		return fmt.Errorf("herdr: invalid report %s", r)
	}
	a.owner.Want(r)
	a.setInFlight(cancel, withdraw)
	defer a.setInFlight(nil, nil)
	return a.deliver(ctx, OpReport, r, false)
}

// setInFlight records the call in flight (nil, nil: none), for Release to
// withdraw or abandon.
func (a *Adapter) setInFlight(cancel context.CancelFunc, withdraw func()) {
	a.mu.Lock()
	a.abandon, a.withdraw = cancel, withdraw
	a.mu.Unlock()
}

// takeBack is the owner's Resend, on the owner's goroutine: the pane a
// newer claim took is free again, so the report last wanted goes out now.
func (a *Adapter) takeBack(adapter.Report) {
	if testHooks.tookBack != nil {
		defer testHooks.tookBack(a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx, withdraw, stop := withdrawable(ctx) // a Release withdraws it as it does a Report
	defer stop()
	if err := a.gate.Enter(a.closing); err != nil { // Close ends the wait
		return
	}
	defer a.gate.Leave()
	r, ok := a.owner.Wanted()
	if !ok {
		return
	}
	a.setInFlight(cancel, withdraw)
	defer a.setInFlight(nil, nil)
	if err := a.deliver(ctx, OpReport, r, true); err == nil {
		a.log.Debug("herdr pane taken back", "pane", a.pane)
	}
}

// testHooks are seams for this package's tests (export_test.go); zero in
// production. callBudget replaces a call's budget once it has the pane,
// maxRelease replaces MaxReleaseTimeout.
var testHooks struct {
	tookBack               func(*Adapter)
	callBudget, maxRelease time.Duration
}

// OwnsPane reports false while another claim holds the pane: a newer
// adapter of this process, or another process ([adapter.PaneOwner]). It is
// safe for concurrent use.
func (a *Adapter) OwnsPane() bool { return !a.owner.Stale() }

// MaxReleaseTimeout bounds the time Release spends, waiting for the pane
// and calling Herdr together, whatever the "timeout" setting: a host that
// quits while Herdr hangs is kept waiting at most this long. It is above
// the 1 s that a slow but healthy Herdr may take per call.
const MaxReleaseTimeout = 1500 * time.Millisecond

// releaseWait is Release's own wait: min(timeout, MaxReleaseTimeout).
func (a *Adapter) releaseWait() time.Duration {
	if testHooks.maxRelease > 0 {
		return testHooks.maxRelease
	}
	return min(a.timeout, MaxReleaseTimeout)
}

// Release hands the pane back (pane.release_agent, numbered above every
// earlier call) once any call on the pane has finished. A Report of this
// adapter in flight is withdrawn: dropped if its request has not left,
// waited for within the release's budget if it may have, and abandoned
// (context.Canceled) only when that runs out. A later Report claims the
// pane afresh.
//
// While a newer claim holds the pane, Release sends nothing and returns
// nil with one stale_owner diagnostic. An adapter that never reported
// still releases a pane last held by an older claim of this process or by
// a process that has exited. "pane_not_found" counts as released. The
// budget, for waiting and calling together within ctx, is min(the
// "timeout" setting, [MaxReleaseTimeout]). After Close, Release returns
// [adapter.ErrClosed].
func (a *Adapter) Release(ctx context.Context) error {
	ctx, _ = adapter.WithWithdraw(ctx) // a release is never withdrawn, whatever ctx carries
	a.owner.Forget()
	a.mu.Lock()
	withdraw, abandon := a.withdraw, a.abandon
	a.mu.Unlock()
	if withdraw != nil {
		withdraw()
		t := time.AfterFunc(a.releaseWait(), abandon)
		defer t.Stop()
	}
	if err := a.gate.Enter(ctx); err != nil {
		return err
	}
	defer a.gate.Leave()
	return a.deliver(ctx, OpRelease, adapter.Report{}, false)
}

// RefreshInterval returns the "refresh" setting (30 s by default, 0 when
// off): Herdr forgets custom reporters when its server restarts, and the
// registry's repeated report puts the state back. A stale or closed
// adapter returns 0. It is safe for concurrent use.
func (a *Adapter) RefreshInterval(adapter.Report) time.Duration {
	if a.gate.Closed() || a.owner.Stale() {
		return 0
	}
	return a.refresh
}

// Close abandons a call in flight (a CLI child is killed) and waits for it
// within ctx, ends the waits of other calls with [adapter.ErrClosed], and
// gives the pane up without telling Herdr, so that a successor may take
// over. It is idempotent and safe for concurrent use.
func (a *Adapter) Close(ctx context.Context) error {
	err := a.gate.Close(ctx)
	a.owner.Close() // frees the pane in the process; a no-op once freed
	if err != nil {
		return fmt.Errorf("herdr: close: %w", err)
	}
	return nil
}

// SetSession sets the session identity sent with reports until one is
// delivered. An id, path or resume argv the Herdr CLI would refuse or
// swallow (invalid UTF-8, control characters, an option such as
// --session) is dropped with one invalid_value diagnostic; a path that is
// not absolute is not sent. It is safe for concurrent use; after Close it
// does nothing.
func (a *Adapter) SetSession(id session.Identity) {
	a.mu.Lock()
	if a.gate.Closed() || id == a.rawIdent {
		a.mu.Unlock()
		return
	}
	bad := a.setIdentityLocked(id)
	a.mu.Unlock()
	if bad != "" {
		a.diags.Emit(adapter.KindInvalidValue, "%s", bad)
	}
}

// resumeOnly returns id without its id and path: two results are equal
// exactly when the resume commands are.
func resumeOnly(id session.Identity) session.Identity {
	id.ID, id.Path = "", ""
	return id
}

// setIdentityLocked stores id and arms sending it. It returns what was
// dropped, or "". a.mu is held, or a is not yet shared.
func (a *Adapter) setIdentityLocked(id session.Identity) (dropped string) {
	resumeChanged := resumeOnly(id) != resumeOnly(a.rawIdent)
	a.rawIdent = id
	clean := session.Identity{ID: id.ID, Path: id.Path}
	var why []string
	if clean.ID != "" {
		if err := checkArg(clean.ID); err != nil {
			why = append(why, "session id dropped: "+err.Error())
			clean.ID = ""
		}
	}
	if clean.Path != "" {
		if err := checkArg(clean.Path); err != nil {
			why = append(why, "session path dropped: "+err.Error())
			clean.Path = ""
		} else if !isAbsPath(clean.Path) {
			clean.Path = ""
		}
	}
	if clean != a.ident || !resumeChanged {
		a.ident = clean
		a.identGen++
		a.identPending = clean != session.Identity{}
	}
	if resumeChanged {
		a.resume = nil
		if words := id.Resume(); words != nil {
			if err := checkResume(words); err != nil {
				why = append(why, "resume command dropped: "+err.Error())
			} else {
				a.resume = words
			}
		}
		a.resumePend = a.resume != nil
	}
	return strings.Join(why, "; ")
}

// Details returns what the adapter knows, for registry.Explain: its
// settings, the transport in use, the server's version and protocol, where
// the claim stands ("owner": owner, stale, free or closed), the last call,
// the pane file's directory, the session identity and resume command
// (none, pending, delivered), and a counter per diagnostic kind
// ("diag.<kind>"). It is safe for concurrent use.
func (a *Adapter) Details() map[string]string {
	status := a.owner.Status().String()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gate.Closed() {
		status = "closed"
	}
	refresh := "off"
	if a.refresh > 0 {
		refresh = a.refresh.String()
	}
	m := map[string]string{
		"pane":            a.pane,
		"source":          a.source,
		"agent":           a.label,
		"bin":             a.bin,
		"socket":          a.socket,
		"timeout":         a.timeout.String(),
		"release_timeout": a.releaseWait().String(),
		"refresh":         refresh,
		"transport":       a.mode.String(),
		"transport_used":  "(none yet)",
		"server_version":  "(unknown)",
		"server_protocol": "(unknown)",
		"owner":           status,
		"last_seq":        strconv.FormatUint(a.lastSeq, 10),
		"last_state":      cmp.Or(a.lastState, "(none)"),
		"last_op":         "(none)",
		"owner_file":      cmp.Or(a.stateDir, "(none)"),
		"session":         "none",
		"resume":          "none",
	}
	if a.lastOp != 0 {
		m["last_op"] = a.lastOp.String()
	}
	if a.routed {
		m["transport_used"] = a.route.String()
	}
	if a.server.Protocol != 0 {
		m["server_version"] = a.server.Version
		m["server_protocol"] = strconv.Itoa(a.server.Protocol)
	}
	if a.ident != (session.Identity{}) {
		m["session"] = "delivered"
		if a.identPending {
			m["session"] = "pending"
		}
	}
	switch {
	case a.resume == nil:
	case a.resumeOff:
		m["resume"] = "refused by herdr"
	case a.resumePend:
		m["resume"] = "pending"
	default:
		m["resume"] = "delivered"
	}
	a.diags.AddDetails(m)
	return m
}

// Errors inside a timeout CallError: another call on the pane held it past
// the wait; a CLI call's deadline was spent by an earlier exchange.
var (
	errWaitTimeout = errors.New("waiting for another call on the pane")
	errNoTimeLeft  = errors.New("no time left before the deadline")
)

// deliver waits for the pane through the owner (this process's call in
// flight, then another process's, which is bypassed when it does not end
// within the wait), and makes the exchange when the owner may. A take-back
// does not wait for another process's call: it yields, and the owner's
// goroutine sends it again once the pane is free.
func (a *Adapter) deliver(ctx context.Context, op Op, r adapter.Report, takeBack bool) error {
	// A report may wait up to the timeout for the pane and then call for up
	// to the timeout; a release has one budget for both.
	now := time.Now()
	budget := a.timeout
	if testHooks.callBudget > 0 {
		budget = testHooks.callBudget
	}
	opts := owner.BeginOptions{Op: owner.Report, Wait: now.Add(a.timeout), Budget: budget,
		ClockMs: clockMs(a.clock()), TakeBack: takeBack}
	if op == OpRelease {
		opts.Op = owner.Release
		opts.Wait = now.Add(a.releaseWait())
		opts.Until = opts.Wait
	}
	call, err := a.owner.Begin(waitContext(ctx), a.closing, opts) // withdrawal ends the wait too
	if err != nil {
		return a.waitFailed(ctx, op, err)
	}
	delivered := false
	defer func() { call.End(delivered) }()
	if call.Claimed {
		a.startClaim()
		a.log.Debug("herdr pane claimed", "pane", a.pane, "source", a.source)
	}
	if call.FileErr != nil {
		a.diags.Emit(adapter.KindPersistFailed, "%v", call.FileErr)
	}
	if call.MarkErr != nil {
		a.diags.Emit(adapter.KindInvalidValue, "%v", call.MarkErr)
	}
	if call.Bypassed {
		a.diags.Emit(adapter.KindTimeout, "%s: the pane was held past the wait by a process that does not move (stopped?); sent with a higher sequence number", op)
	}
	switch {
	case call.Yielded:
		return nil
	case !call.Send:
		a.staleOwner(op, call.By)
		return nil
	}
	err = a.exchange(ctx, call, op, r, call.Deadline())
	delivered = err == nil
	return err
}

// waitFailed turns an error from waiting for the pane into Report's or
// Release's error: ctx's own error, ErrClosed, or a timeout CallError when
// the wait's own deadline passed.
func (a *Adapter) waitFailed(ctx context.Context, op Op, err error) error {
	switch {
	case errors.Is(err, adapter.ErrClosed):
		return err
	case a.closing.Err() != nil:
		return adapter.ErrClosed
	case ctx.Err() != nil:
		return fmt.Errorf("herdr: %s: waiting for the pane: %w", op, ctx.Err())
	case isWithdrawn(ctx):
		return fmt.Errorf("herdr: %s: waiting for the pane: %w", op, errWithdrawn)
	}
	ce := &CallError{Op: op, Kind: adapter.KindTimeout, Exit: -1, Err: errWaitTimeout}
	a.diags.Emit(ce.Kind, "%s: %s", op, ce.Detail())
	return ce
}

// exchange sends the request for op, with fresh sequence numbers, while the
// caller holds the pane (pf is nil when the pane file is unusable). For a
// report it also handles the resume argv: it goes out only once the pane is
// held (so right after the first delivered report of a claim the same
// report is sent again with it), and when Herdr refuses it the report is
// sent again without it.
func (a *Adapter) exchange(ctx context.Context, call *owner.Call, op Op, r adapter.Report, deadline time.Time) error {
	if isWithdrawn(ctx) {
		return a.finish(op, r, 0, nil, errWithdrawn)
	}
	if op == OpReport && a.serverRestarted() {
		// A new server holds nothing of this claim: start it over, so that
		// this report carries the session identity and the resume argv
		// follows it, as after a call that found no server.
		a.startClaim()
		a.log.Debug("herdr server restarted: the claim starts over", "pane", a.pane)
	}
	t, err := a.transportFor(ctx, deadline, op)
	if err != nil {
		return a.finish(op, r, 0, nil, err)
	}
	req := a.request(op, r)
	delivered := false // the state itself went through
	for range 3 {      // the report, a resend without resume, a follow-up with it
		if isWithdrawn(ctx) || ctx.Err() != nil {
			// Nothing of this request has left: drop it. A follow-up
			// with the resume argv waits for the next claim's report.
			if delivered {
				return nil
			}
			if ctx.Err() != nil {
				return a.finish(op, r, 0, nil, ctx.Err())
			}
			return a.finish(op, r, 0, nil, errWithdrawn)
		}
		seq, seqErr := a.takeSeq(call)
		if seqErr != nil {
			// Another process took the call over while this process
			// was stopped: nothing more of this call may go after its.
			a.staleOwner(op, "another process")
			return nil
		}
		req.seq = seq
		err := t.send(ctx, a.closing, deadline, req)
		if err != nil && ctx.Err() != nil && !errors.Is(err, adapter.ErrWithdrawn) {
			err = fmt.Errorf("abandoned in flight, herdr may still apply seq %d: %w", req.seq, err)
		}
		var ce *CallError
		if errors.As(err, &ce) && ce.socketLevel {
			a.pinged = false // ping again before the next call
			if op == OpRelease && a.mode == transportAuto && t != transport(a.cli) && ce.Kind != adapter.KindTimeout && time.Now().Before(deadline) {
				// The socket failed where the CLI may reach the server
				// (a pipe client that reaches it differently): try the
				// CLI, with a fresh sequence number, before giving up.
				t = a.cli
				a.setRoute(transportCLI)
				continue
			}
		}
		if req.resume != nil && errors.As(err, &ce) && resumeRefusal(ce) != "" {
			a.resumeRefused(resumeRefusal(ce))
			if delivered {
				return nil
			}
			req.resume = nil
			continue
		}
		if err = a.finish(op, r, req.seq, req, err); err != nil {
			if delivered { // only the follow-up with the resume argv failed
				return nil
			}
			return err
		}
		a.mu.Lock()
		a.via = transportSocket
		if t == transport(a.cli) {
			a.via = transportCLI
		}
		a.mu.Unlock()
		if op == OpRelease {
			return nil
		}
		delivered = true
		a.mu.Lock()
		again := req.resume == nil && a.resumeNow()
		a.mu.Unlock()
		if !again {
			return nil
		}
		req = a.request(op, r) // now held: the same report with the resume argv
	}
	return nil
}

// transportFor returns the transport for the next call. The cli mode never
// dials: when a resume argv is set it asks `herdr status server --json`
// once per claim for the server's version. The socket and auto modes ping
// the server once per claim (and again after a socket-level failure) to
// learn its version and protocol; auto falls back to the CLI when the ping
// fails or the protocol is not one this adapter knows, while socket fails
// the call. A release is never preceded by a ping.
func (a *Adapter) transportFor(ctx context.Context, deadline time.Time, op Op) (transport, error) {
	a.mu.Lock()
	via := a.via
	a.mu.Unlock()
	if op == OpRelease && a.mode == transportAuto && via == transportCLI {
		// The release takes the route that last delivered: the socket may
		// not answer where the CLI does.
		a.setRoute(transportCLI)
		return a.cli, nil
	}
	if op == OpRelease && a.mode != transportCLI && !a.pinged {
		// No ping for a release: its budget is short, and a slow server
		// would spend it twice. The release request is the same in every
		// protocol this adapter knows. Go by the last answer of an earlier
		// claim, if any; with none, try the socket.
		a.mu.Lock()
		proto := a.server.Protocol
		a.mu.Unlock()
		switch {
		case proto == 0 || knownProtocol(proto):
			a.setRoute(transportSocket)
			return a.sock, nil
		case a.mode == transportAuto:
			a.setRoute(transportCLI)
			return a.cli, nil
		}
	}
	if a.mode == transportCLI {
		a.setRoute(transportCLI)
		if !a.probed {
			if err := a.probePeer(); err != nil {
				return nil, err
			}
			a.probed = true
		}
		a.mu.Lock()
		due := a.resumeDue()
		a.mu.Unlock()
		if !a.pinged && due {
			// The CLI's own answer to a ping, once per claim, and only when
			// there is a resume argv that needs the server's version.
			a.pinged = true
			p, err := a.cli.status(ctx, a.closing, deadline)
			if err != nil {
				// Not an earlier claim's answer: the server may have
				// changed since.
				p = pong{}
			}
			a.mu.Lock()
			a.server = p
			a.mu.Unlock()
		}
		return a.cli, nil
	}
	if !a.pinged {
		p, err := a.sock.ping(ctx, a.closing, deadline)
		switch {
		case err == nil:
			a.mu.Lock()
			a.server = p
			a.mu.Unlock()
			a.pinged = true
		case a.mode == transportSocket, !pingFallsBack(err), refusedPeer(err):
			a.setRoute(transportSocket)
			return nil, err
		}
	}
	a.mu.Lock()
	known := a.pinged && knownProtocol(a.server.Protocol)
	proto := a.server.Protocol
	a.mu.Unlock()
	switch {
	case known:
		a.setRoute(transportSocket)
		return a.sock, nil
	case a.mode == transportSocket:
		a.setRoute(transportSocket)
		return nil, &CallError{Op: OpReport, Kind: adapter.KindProtocolRejected, Exit: -1, Code: "protocol_mismatch", socket: true,
			Err: fmt.Errorf("server protocol %d is not one of %v", proto, knownProtocols)}
	}
	a.setRoute(transportCLI)
	return a.cli, nil
}

// pingFallsBack reports whether auto mode may try the CLI after the ping
// failed with err: not after a timeout (the server is wedged, the CLI would
// wait on it as well, and no time is left) nor when the call was abandoned
// (ctx's error, ErrClosed).
func pingFallsBack(err error) bool {
	var ce *CallError
	return errors.As(err, &ce) && ce.Kind != adapter.KindTimeout
}

// setRoute records the transport in use, for Details.
func (a *Adapter) setRoute(t transportMode) {
	a.mu.Lock()
	a.route, a.routed = t, true
	a.mu.Unlock()
}

// request builds the request for op, with the session identity and resume
// argv when they are due.
func (a *Adapter) request(op Op, r adapter.Report) *request {
	req := &request{op: op, pane: a.pane, source: a.source, agent: a.label}
	if op == OpRelease {
		return req
	}
	req.state = r.State.String()
	req.message = r.Message.String()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.identPending {
		req.sessionID, req.sessionPath = a.ident.ID, a.ident.Path
		req.identGen = a.identGen
		req.withIdent = true
	}
	if a.resumeNow() {
		req.resume = a.resume
	}
	return req
}

// resumeDue reports whether a resume argv is set and may still go out in
// this claim. a.mu is held.
func (a *Adapter) resumeDue() bool { return a.resume != nil && a.resumePend && !a.resumeOff }

// resumeNow reports whether the next report carries the resume argv: it
// is due, the pane is held (a report delivered in this claim), and the
// server is 0.9.2 or later. a.mu is held.
func (a *Adapter) resumeNow() bool {
	return a.resumeDue() && a.held && a.pinged && resumeSupported(a.server.Version)
}

// resumeRefusal returns why Herdr refused a report that carried the resume
// argv because of it, or "": invalid_resume_argv, resume_not_accepted, or
// a CLI usage error (exit 2), which is how a Herdr CLI before 0.9.2 refuses
// the "--" before the argv (HERDR-0.9.md). Without the last, a server whose
// version said 0.9.2 or later (or a stale answer) behind such a CLI would
// fail every later report of the claim.
func resumeRefusal(ce *CallError) string {
	switch {
	case ce.Code == codeInvalidResume || ce.Code == codeResumeNotAccepted:
		return ce.Code
	case !ce.socket && ce.Exit == 2 && ce.Kind == adapter.KindProtocolRejected:
		return refusalUsage
	}
	return ""
}

// refusalUsage is resumeRefusal's answer for a CLI usage error.
const refusalUsage = "usage error, exit 2"

// resumeRefused records Herdr's refusal of the resume argv: an invalid one
// (or one the CLI cannot parse) is off for the rest of the claim; one sent
// before the pane was held (after a server restart, say) waits for the next
// delivered report.
func (a *Adapter) resumeRefused(code string) {
	off := code != codeResumeNotAccepted
	a.mu.Lock()
	if off {
		a.resumeOff = true
	} else {
		a.held = false
	}
	a.mu.Unlock()
	if off {
		a.diags.Emit(adapter.KindInvalidValue, "resume command refused by herdr (%s); not sent again in this claim", code)
	}
}

// takeSeq returns the sequence number of the next exchange, recorded in the
// pane file before the exchange. At 2^64-1 it stays there, with one
// diagnostic. It fails when another process took the pane during the call
// (see owner.Call.Seq).
func (a *Adapter) takeSeq(call *owner.Call) (uint64, error) {
	seq, saturated, err := call.Seq()
	if err != nil {
		return 0, err
	}
	if saturated {
		a.mu.Lock()
		first := !a.saturated
		a.saturated = true
		a.mu.Unlock()
		if first { // once in the adapter's life, not once per claim
			a.diags.Send(adapter.KindInvalidValue,
				"sequence numbers exhausted at 18446744073709551615: herdr will ignore this pane's reports until its server restarts; remove the pane's file under %s", a.stateDir)
		} else {
			a.diags.Tally(adapter.KindInvalidValue)
		}
	}
	return seq, nil
}

// finish records the outcome of one call and turns err into the caller's
// error (with a diagnostic for a CallError).
func (a *Adapter) finish(op Op, r adapter.Report, seq uint64, req *request, err error) error {
	var ce *CallError
	if op == OpRelease && errors.As(err, &ce) && ce.Code == "pane_not_found" {
		err = nil // the pane is gone: nothing left to release
	}
	if errors.As(err, &ce) {
		ce.Op = op
	}
	a.mu.Lock()
	if errors.As(err, &ce) && ce.Code == "server_not_running" {
		// The server is gone: when one comes back it holds nothing of
		// this claim (CONTRACT §3.3). Start the claim over, so that the
		// report that puts the state back carries the session identity,
		// and the resume argv follows it.
		a.rearmLocked()
	}
	if seq != 0 {
		a.lastSeq, a.lastOp = seq, op
	}
	if err == nil {
		if op == OpRelease {
			a.lastState = "released"
			a.held = false
		} else {
			a.lastState = r.State.String()
			a.held = true
			if req.withIdent && req.identGen == a.identGen {
				a.identPending = false
			}
			if req.resume != nil {
				a.resumePend = false
			}
		}
	}
	a.mu.Unlock()

	switch {
	case err == nil:
		switch {
		case !a.log.IsDebug(): // the arguments would be boxed for nothing
		case op == OpRelease:
			a.log.Debug("herdr pane released", "seq", seq)
		default:
			a.log.Debug("herdr call delivered", "op", op.String(), "state", r.State.String(), "seq", seq)
		}
		return nil
	case errors.As(err, &ce):
		a.diags.Emit(ce.Kind, "%s: %s", op, ce.Detail())
		return err
	case errors.Is(err, adapter.ErrClosed):
		return err
	default:
		return fmt.Errorf("herdr: %s: %w", op, err)
	}
}

// startClaim resets what is per claim: diagnostics are reported afresh, the
// session identity and resume argv are sent again, and the server is
// pinged again.
func (a *Adapter) startClaim() {
	a.diags.Reset()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rearmLocked()
}

// rearmLocked arms what a claim sends once: the session identity and the
// resume argv go out again, the server is pinged again, and the pane
// counts as not held until a report is delivered. a.mu is held.
func (a *Adapter) rearmLocked() {
	a.identPending = a.ident != session.Identity{}
	a.resumePend = a.resume != nil
	a.resumeOff = false
	a.held = false
	a.pinged = false
	a.probed = false
	a.via = transportAuto
}

func (a *Adapter) staleOwner(op Op, by string) {
	a.diags.Emit(adapter.KindStaleOwner, "%s not sent: pane %s is held by %s", op, a.pane, by)
}
