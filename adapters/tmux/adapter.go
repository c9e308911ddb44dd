package tmux

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/calls"
	"github.com/panestate/panestate/internal/cmdrun"
	"github.com/panestate/panestate/internal/owner"
	"github.com/panestate/panestate/session"
)

// Adapter sets the pane options of the tmux pane the process runs in. It
// is returned by [Driver.Open]; see the package documentation.
//
// Report, Release and Close may be called from any goroutine; calls are
// serialised, so a Report waits for an in-flight one. Details and
// SetSession are safe for concurrent use with everything.
type Adapter struct {
	// Fixed at Open.
	log      hclog.Logger
	pane     string
	socket   string
	label    string
	timeout  time.Duration
	names    [4]string // @<prefix>_state, _message, _agent, and @<prefix> (the JSON one)
	runner   *cmdrun.Runner
	gate     *calls.Gate        // one Report, Release or Close at a time
	diags    *calls.Diagnostics // once per kind and claim
	owner    *owner.Owner       // this adapter's claim of the pane
	stateDir string             // the pane file's directory, or ""
	now      func() time.Time   // the JSON option's "updated"

	mu        sync.Mutex
	lastOp    string // op of the last call attempted
	lastState string // what the pane shows, as far as we know
	session   string // the session id (SetSession), or ""
}

// testTookBack, when set by a test, is called when a take-back has run.
var testTookBack func(*Adapter)

// Guards: Adapter implements the optional interfaces it means to.
var (
	_ adapter.Adapter      = (*Adapter)(nil)
	_ adapter.Releaser     = (*Adapter)(nil)
	_ adapter.Closer       = (*Adapter)(nil)
	_ adapter.Detailer     = (*Adapter)(nil)
	_ adapter.PaneOwner    = (*Adapter)(nil)
	_ adapter.SessionAware = (*Adapter)(nil)
)

// Report sets the pane's options to r in one tmux invocation, the commands
// chained with ";" arguments: tmux runs them back to back before its next
// redraw and drops the rest after a failure, so a status line never shows
// one report's state with another's message.
//
// ctx bounds the call together with the adapter's timeout. A report
// withdrawn ([adapter.Withdrawn]) before the tmux client starts runs
// nothing and returns an error wrapping [adapter.ErrWithdrawn]; a client
// already started is waited for, because its commands run in the server
// even if it is killed. When ctx ends the client is killed and an error
// wrapping ctx's error is returned, with no diagnostic. A call that did not
// deliver returns an error wrapping a [*cmdrun.Error] and emits a
// diagnostic of its kind, at most one per kind from the first Report after
// Open or Release until the next Release, naming a code such as
// [CodePaneNotFound], never tmux's message. After Close, Report returns
// [adapter.ErrClosed].
func (a *Adapter) Report(ctx context.Context, r adapter.Report) error {
	// A withdrawn report ends the want of the pane (no take-back), under
	// the gate, so that a take-back waiting for it finds the pane unwanted.
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
	return a.deliver(ctx, &r, false)
}

// takeBack is the owner's Resend: the pane a newer claim took is free
// again, so the last report asked for goes out now rather than at the next
// change. It runs on the owner's goroutine; a Release or Close since
// cancels it.
func (a *Adapter) takeBack(adapter.Report) {
	if testTookBack != nil {
		defer testTookBack(a)
	}
	if err := a.gate.Enter(a.gate.Closing()); err != nil { // Close ends the wait
		return
	}
	defer a.gate.Leave()
	if r, ok := a.owner.Wanted(); ok && a.deliver(context.Background(), &r, true) == nil {
		a.log.Debug("tmux pane taken back", "pane", a.pane)
	}
}

// OwnsPane reports false while another claim holds the pane: a newer
// adapter of this process, or another process in the pane
// ([adapter.PaneOwner]). It is safe for concurrent use.
func (a *Adapter) OwnsPane() bool { return !a.owner.Stale() }

// SetSession keeps the session id for the JSON option's "session"; the
// resume command and the session file's path are never sent to tmux.
func (a *Adapter) SetSession(id session.Identity) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.session = id.ID
}

// Release unsets the pane's options (set-option -p -u) in one tmux
// invocation, whether or not this adapter reported: a successor opened by
// a settings reload and released before its first report still clears
// what its predecessor set. It is not sent, with one stale_owner
// diagnostic, while the pane is another claim's. A pane that no longer
// exists and a server that is not running (or exited during the call)
// count as released, with no diagnostic.
//
// ctx bounds the call as in Report. After Close, Release returns
// [adapter.ErrClosed].
func (a *Adapter) Release(ctx context.Context) error {
	ctx, _ = adapter.WithWithdraw(ctx) // a release is never withdrawn, whatever ctx carries
	a.owner.Forget()
	err := a.gate.Enter(ctx)
	if err == nil {
		defer a.gate.Leave()
		err = a.deliver(ctx, nil, false)
	}
	a.leaveRelease(ctx, err)
	return err
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
	if err := a.runner.Leave(a.argv(nil)...); err != nil {
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

// Details returns what the adapter knows, for registry.Explain: the pane,
// socket, tmux executable, option names, agent label, timeout, the last
// operation and state delivered, where the claim of the pane stands
// ("owner": owner, stale, free or closed) and the directory of
// its pane file ("owner_file"), and a counter per diagnostic kind
// ("diag.<kind>"). It is safe for concurrent use.
func (a *Adapter) Details() map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := map[string]string{
		"pane":       a.pane,
		"socket":     a.socket,
		"bin":        a.runner.Path,
		"options":    strings.Join(a.names[:3], " "),
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

// argv is one tmux invocation that sets the four options to r or, with r
// nil, unsets them: every value its own element, commands separated by a
// lone ";" argument (never a shell).
func (a *Adapter) argv(r *adapter.Report) []string {
	args := make([]string, 0, 2+4*8)
	args = append(args, "-S", a.socket)
	var values [4]string
	if r != nil {
		a.mu.Lock()
		session := a.session
		a.mu.Unlock()
		// Every key always there, so that a reader need not tell a
		// missing key from an empty one; strings only, so Marshal cannot fail.
		b, _ := json.Marshal(struct {
			State   string `json:"state"`
			Message string `json:"message"`
			Agent   string `json:"agent"`
			App     string `json:"app"`
			Session string `json:"session"`
			Updated string `json:"updated"`
		}{r.State.String(), r.Message.String(), a.label, a.label, session, a.now().UTC().Format(time.RFC3339)})
		values = [4]string{r.State.String(), r.Message.String(), a.label, string(b)}
	}
	for i, name := range a.names {
		if i > 0 {
			args = append(args, ";")
		}
		if r == nil {
			args = append(args, "set-option", "-p", "-u", "-t", a.pane, name)
		} else {
			args = append(args, "set-option", "-p", "-t", a.pane, name, values[i])
		}
	}
	return args
}

// deliver makes one call through the owner, of r or, with r nil, of the
// release: it waits for the pane (this process's call in flight, then
// another process's, bypassed when it does not end within the timeout) and
// runs tmux when the owner may; when it may not, it emits one stale_owner
// diagnostic and returns nil.
func (a *Adapter) deliver(ctx context.Context, r *adapter.Report, takeBack bool) error {
	op, state := owner.Release, "released"
	if r != nil {
		op, state = owner.Report, r.State.String()
	}
	call, err := a.owner.Begin(ctx, a.gate.Closing(), owner.BeginOptions{Op: op, Wait: time.Now().Add(a.timeout), Budget: a.timeout, TakeBack: takeBack})
	switch {
	case errors.Is(err, owner.ErrBusy):
		a.diags.Emit(adapter.KindTimeout, "%s: %v", op, err)
		return fmt.Errorf("tmux: %s: %w", op, err)
	case errors.Is(err, adapter.ErrClosed):
		return err
	case err != nil:
		return fmt.Errorf("tmux: %s: %w", op, err)
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
		return nil
	case !call.Send:
		a.diags.Emit(adapter.KindStaleOwner, "%s not sent: pane %s is held by %s", op, a.pane, call.By)
		return nil
	}
	if err := a.call(ctx, op, a.argv(r)); err != nil {
		return err
	}
	delivered = true
	a.mu.Lock()
	a.lastState = state
	a.mu.Unlock()
	if r == nil {
		a.log.Debug("tmux pane options unset", "pane", a.pane)
	} else {
		a.log.Debug("tmux pane options set", "pane", a.pane, "state", state)
	}
	return nil
}

// call runs tmux once. It returns nil (also for a release that finds the
// options gone: the pane closed, the server not running or exited during
// the call), an error wrapping ctx's error, [adapter.ErrClosed], or an
// *opError (after emitting its diagnostic).
func (a *Adapter) call(ctx context.Context, op owner.Op, args []string) error {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(a.gate.Closing(), cancel)() // Close kills an in-flight call
	a.mu.Lock()
	a.lastOp = op.String()
	a.mu.Unlock()
	_, err := a.runner.Run(cctx, args...)
	var ce *cmdrun.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		if op == owner.Release && (ce.Code == CodePaneNotFound || ce.Code == CodeServerNotRunning || ce.Code == CodeServerExited) {
			return nil
		}
		a.diags.Emit(ce.Kind, "%s: %s", op, ce.Detail())
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
	op  owner.Op
	err *cmdrun.Error
}

func (e *opError) Error() string {
	return "tmux: " + e.op.String() + ": " + string(e.err.Kind) + ": " + e.err.Detail()
}

func (e *opError) Unwrap() error { return e.err }
