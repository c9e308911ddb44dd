package tmux

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/calls"
	"github.com/panestate/panestate/internal/cmdrun"
	"github.com/panestate/panestate/internal/owner"
)

// Operations, as they appear in diagnostics and Explain.
const (
	opReport  = "report"
	opRelease = "release"
)

// Adapter sets the pane options of the tmux pane the process runs in. It
// is returned by [Driver.Open]; see the package documentation.
//
// Report, Release and Close may be called from any goroutine; calls are
// serialised, so a Report waits for an in-flight one. Details is safe for
// concurrent use with everything.
type Adapter struct {
	// Fixed at Open.
	log      hclog.Logger
	pane     string
	socket   string
	prefix   string
	label    string
	timeout  time.Duration
	names    [3]string // @<prefix>_state, _message, _agent
	runner   *cmdrun.Runner
	gate     *calls.Gate        // one Report, Release or Close at a time
	diags    *calls.Diagnostics // once per kind and claim
	owner    *owner.Owner       // this adapter's claim of the pane
	stateDir string             // the pane file's directory, or ""
	json     jsonOption         // @<prefix>, the report as one JSON object (jsonoption.go)

	mu        sync.Mutex
	lastOp    string // op of the last call attempted
	lastState string // what the pane shows, as far as we know
}

// testTookBack, when set by a test, is called when a take-back has run.
var testTookBack func(*Adapter)

// Guards: Adapter implements the optional interfaces it means to.
var (
	_ adapter.Adapter   = (*Adapter)(nil)
	_ adapter.Releaser  = (*Adapter)(nil)
	_ adapter.Closer    = (*Adapter)(nil)
	_ adapter.Detailer  = (*Adapter)(nil)
	_ adapter.PaneOwner = (*Adapter)(nil)
)

// Report sets the pane's three options to r in one tmux invocation:
//
//	tmux -S <socket> set-option -p -t <pane> @<prefix>_state <state> \;
//	     set-option -p -t <pane> @<prefix>_message <message or ""> \;
//	     set-option -p -t <pane> @<prefix>_agent <app>
//
// tmux runs the chained commands back to back, in one pass of its command
// queue before the next redraw, and drops the rest of the list when one
// fails, so a status line does not show one report's state with another's
// message.
//
// ctx bounds the call together with the adapter's timeout. A report
// withdrawn ([adapter.Withdrawn]) before the tmux client starts returns an
// error wrapping [adapter.ErrWithdrawn] at once; a client already started
// is waited for, since its commands run in the server even if it is
// killed. When ctx ends, the client is killed and ctx's error returned
// without a diagnostic. A call that did not deliver returns an error
// wrapping a [*cmdrun.Error], with one diagnostic of its kind per claim;
// tmux's own message is never repeated, only a recognised code such as
// [CodePaneNotFound]. After Close, Report returns [adapter.ErrClosed].
func (a *Adapter) Report(ctx context.Context, r adapter.Report) error {
	// A withdrawal means reporting stops: the pane is not wanted after this
	// Report (no take-back), forgotten under the gate.
	stopping := adapter.Withdrawn(ctx)
	if err := a.gate.Enter(ctx); err != nil {
		calls.IfStopped(stopping, a.owner.Forget)
		return err
	}
	defer a.gate.Leave()
	defer calls.IfStopped(stopping, a.owner.Forget) // before Leave
	if !r.Valid() {
		return fmt.Errorf("tmux: invalid report %s", r)
	}
	a.owner.Want(r)
	return a.report(ctx, r, false)
}

// report delivers r through the owner, under the gate.
func (a *Adapter) report(ctx context.Context, r adapter.Report, takeBack bool) error {
	sent, err := a.deliver(ctx, opReport, a.reportArgs(r), takeBack)
	if sent && err == nil {
		a.setDelivered(r.State.String())
		a.log.Debug("tmux pane options set", "pane", a.pane, "state", r.State.String())
	}
	return err
}

// takeBack is the owner's Resend, on the owner's goroutine: the pane a
// newer claim took is free again, so the report last wanted goes out now.
func (a *Adapter) takeBack(adapter.Report) {
	if testTookBack != nil {
		defer testTookBack(a)
	}
	if err := a.gate.Enter(a.gate.Closing()); err != nil { // Close ends the wait
		return
	}
	defer a.gate.Leave()
	if r, ok := a.owner.Wanted(); ok && a.report(context.Background(), r, true) == nil {
		a.log.Debug("tmux pane taken back", "pane", a.pane)
	}
}

// OwnsPane reports false while another claim holds the pane: a newer
// adapter of this process, or another process in the pane
// ([adapter.PaneOwner]). It is safe for concurrent use.
func (a *Adapter) OwnsPane() bool { return !a.owner.Stale() }

// Release unsets the pane's options (set-option -p -u) in one tmux
// invocation, whether or not this adapter reported (a successor released
// before its first report still clears what its predecessor set). While
// the pane is another claim's it sends nothing, with one stale_owner
// diagnostic. A pane gone or a server not running counts as released.
//
// ctx bounds the call as in Report. After Close, Release returns
// [adapter.ErrClosed].
func (a *Adapter) Release(ctx context.Context) error {
	ctx, _ = adapter.WithWithdraw(ctx) // a release is never withdrawn, whatever ctx carries
	a.owner.Forget()
	if err := a.gate.Enter(ctx); err != nil {
		a.leaveRelease(ctx, err)
		return err
	}
	defer a.gate.Leave()
	sent, err := a.deliver(ctx, opRelease, a.releaseArgs(), false)
	a.leaveRelease(ctx, err)
	if err != nil || !sent {
		return err
	}
	a.setDelivered("released")
	a.log.Debug("tmux pane options unset", "pane", a.pane)
	return nil
}

// leaveRelease leaves the release to a tmux client that outlives the
// call ([cmdrun.Runner.Leave]) when err says that the server did not
// answer it: its ctx ended, before or during the call, or its deadline
// passed. A server that does not answer may be stopped (SIGSTOP) with
// this adapter's last report in its queue, which it runs once it runs
// again, whether or not the client that sent it was killed since: tmux
// serves its clients in the order they connected, so the clear left here
// lands after it. Nothing is left while the pane is another claim's
// (stale_owner), nor when the server answered (a refusal, a pane gone).
func (a *Adapter) leaveRelease(ctx context.Context, err error) {
	var ce *cmdrun.Error
	unanswered := ctx.Err() != nil || errors.As(err, &ce) && ce.Kind == adapter.KindTimeout
	if err == nil || !unanswered || errors.Is(err, owner.ErrBusy) || a.owner.Stale() {
		return
	}
	if err := a.runner.Leave(a.releaseArgs()...); err != nil {
		a.log.Debug("tmux release not left behind", "pane", a.pane, "error", err)
		return
	}
	a.log.Debug("tmux release left to a client that waits for the server", "pane", a.pane)
}

// Close stops the adapter: an in-flight tmux call is killed and waited for
// (bounded by ctx). The pane's options are left as they are; Release
// clears them. Close is idempotent and safe for concurrent use; after it,
// Report and Release return [adapter.ErrClosed].
func (a *Adapter) Close(ctx context.Context) error {
	err := a.gate.Close(ctx)
	a.owner.Close() // frees the pane in the process: an older adapter may take it back
	if err != nil {
		return fmt.Errorf("tmux: close: %w", err)
	}
	return nil
}

// Details returns what the adapter knows, for registry.Explain: its
// settings, the last call, where the claim stands ("owner": owner, stale,
// free or closed), the pane file's directory, and a counter per diagnostic
// kind ("diag.<kind>"). It is safe for concurrent use.
func (a *Adapter) Details() map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := map[string]string{
		"pane":       a.pane,
		"socket":     a.socket,
		"bin":        a.runner.Path,
		"options":    a.names[0] + " " + a.names[1] + " " + a.names[2],
		"agent":      a.label,
		"timeout":    a.timeout.String(),
		"last_op":    cmp.Or(a.lastOp, "(none)"),
		"last_state": cmp.Or(a.lastState, "(none)"),
		"owner":      a.owner.Status().String(),
		"owner_file": cmp.Or(a.stateDir, "(none)"),
	}
	if a.gate.Closed() {
		m["closed"] = "true"
	}
	a.diags.AddDetails(m)
	return m
}

// reportArgs builds the argv of a report.
func (a *Adapter) reportArgs(r adapter.Report) []string {
	return a.argv(r.State.String(), r.Message.String(), a.label, a.jsonValue(r))
}

// releaseArgs builds the argv of a release: every option unset.
func (a *Adapter) releaseArgs() []string { return a.argv() }

// argv sets the four options to values (the three flat ones, then the JSON
// one), or unsets them all without values: every value its own element,
// commands separated by a lone ";" argument (never a shell).
func (a *Adapter) argv(values ...string) []string {
	args := make([]string, 0, 2+4*8)
	args = append(args, "-S", a.socket)
	for i, name := range [...]string{a.names[0], a.names[1], a.names[2], jsonName(a.prefix)} {
		if i > 0 {
			args = append(args, ";")
		}
		if values == nil {
			args = append(args, "set-option", "-p", "-u", "-t", a.pane, name)
		} else {
			args = append(args, "set-option", "-p", "-t", a.pane, name, values[i])
		}
	}
	return args
}

// deliver makes one call through the owner: it waits for the pane (this
// process's call in flight, then another process's, bypassed when it does
// not end within the timeout) and runs tmux when the owner may. sent is
// false when the call was refused (one stale_owner diagnostic).
func (a *Adapter) deliver(ctx context.Context, op string, args []string, takeBack bool) (sent bool, err error) {
	oop := owner.Report
	if op == opRelease {
		oop = owner.Release
	}
	call, err := a.owner.Begin(ctx, a.gate.Closing(), owner.BeginOptions{Op: oop, Wait: time.Now().Add(a.timeout), Budget: a.timeout, TakeBack: takeBack})
	switch {
	case errors.Is(err, owner.ErrBusy):
		a.diags.Emit(adapter.KindTimeout, "%s: %v", op, err)
		return false, fmt.Errorf("tmux: %s: %w", op, err)
	case errors.Is(err, adapter.ErrClosed):
		return false, err
	case err != nil:
		return false, fmt.Errorf("tmux: %s: %w", op, err)
	}
	delivered := false
	defer func() { call.End(delivered) }()
	if call.Claimed {
		a.diags.Reset()
	}
	if call.FileErr != nil {
		a.diags.Emit(adapter.KindPersistFailed, "%v", call.FileErr)
	}
	if call.Bypassed {
		a.diags.Emit(adapter.KindTimeout, "%s: the pane was held past the %v timeout by a process that does not move (stopped?); going on without it", op, a.timeout)
	}
	switch {
	case call.Yielded:
		return false, nil
	case !call.Send:
		a.diags.Emit(adapter.KindStaleOwner, "%s not sent: pane %s is held by %s", op, a.pane, call.By)
		return false, nil
	}
	err = a.call(ctx, op, args)
	if op == opRelease && paneGone(err) {
		err = nil
	}
	delivered = err == nil
	return true, err
}

// call runs tmux once. It returns nil, an error wrapping ctx's error,
// [adapter.ErrClosed], or an error wrapping a *cmdrun.Error (after emitting
// its diagnostic).
func (a *Adapter) call(ctx context.Context, op string, args []string) error {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(a.gate.Closing(), cancel)() // Close kills an in-flight call
	a.mu.Lock()
	a.lastOp = op
	a.mu.Unlock()
	_, err := a.runner.Run(cctx, args...)
	var ce *cmdrun.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		if op != opRelease || !paneGone(err) {
			a.diags.Emit(ce.Kind, "%s: %s", op, ce.Detail())
		}
		return &opError{op: op, err: ce}
	case ctx.Err() != nil:
		return fmt.Errorf("tmux: %s: %w", op, ctx.Err())
	case a.gate.Closing().Err() != nil:
		return adapter.ErrClosed
	default:
		return fmt.Errorf("tmux: %s: %w", op, err)
	}
}

// opError is the error of a tmux call that did not deliver: "tmux: report:
// timeout: killed at the 5s deadline". It unwraps to the *cmdrun.Error.
type opError struct {
	op  string
	err *cmdrun.Error
}

func (e *opError) Error() string {
	return "tmux: " + e.op + ": " + string(e.err.Kind) + ": " + e.err.Detail()
}

func (e *opError) Unwrap() error { return e.err }

// paneGone reports whether err says the pane's options no longer exist:
// the pane was closed, or the server is not running or exited during the
// call.
func paneGone(err error) bool {
	var ce *cmdrun.Error
	if !errors.As(err, &ce) {
		return false
	}
	switch ce.Code {
	case CodePaneNotFound, CodeServerNotRunning, CodeServerExited:
		return true
	}
	return false
}

func (a *Adapter) setDelivered(state string) {
	a.mu.Lock()
	a.lastState = state
	a.mu.Unlock()
}
