package herdr

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/panestate/panestate/adapter"
)

// request is one call to Herdr, whatever the transport: the fields of
// pane.report_agent or pane.release_agent (CONTRACT §2.2).
type request struct {
	op          Op
	pane        string
	source      string
	agent       string
	state       string // report only
	message     string // report only; one of the fixed texts or ""
	seq         uint64
	sessionID   string   // report only; "" when not sent
	sessionPath string   // report only; "" when not sent
	resume      []string // report only; nil when not sent (Herdr 0.9.2+)

	withIdent bool   // the session identity is in the request
	identGen  uint64 // the identity generation it came from
}

// transport delivers a request to Herdr.
type transport interface {
	// send delivers req and returns nil, ctx's error when ctx ended first,
	// or a *CallError. deadline is the call's own deadline: reaching it is a
	// timeout CallError, while ctx ending is the caller's business. closed is
	// the adapter's done context; when it ends the call is abandoned and
	// send returns [adapter.ErrClosed].
	send(ctx, closed context.Context, deadline time.Time, req *request) error
}

// argv returns the CLI arguments of req: every value its own element, no
// "=" forms, and a "--" only before a resume argv (after which Herdr's
// global preprocessing stops, CONTRACT §1.1, HERDR-0.9.md).
func (req *request) argv() []string {
	args := make([]string, 0, 17+len(req.resume))
	args = append(args, "pane", req.op.String(), req.pane, "--source", req.source, "--agent", req.agent)
	if req.op == OpRelease {
		return append(args, "--seq", strconv.FormatUint(req.seq, 10))
	}
	args = append(args, "--state", req.state)
	if req.message != "" {
		args = append(args, "--message", req.message)
	}
	args = append(args, "--seq", strconv.FormatUint(req.seq, 10))
	if req.sessionID != "" {
		args = append(args, "--agent-session-id", req.sessionID)
	}
	if req.sessionPath != "" {
		args = append(args, "--agent-session-path", req.sessionPath)
	}
	if req.resume != nil {
		args = append(args, "--")
		args = append(args, req.resume...)
	}
	return args
}

// errWithdrawn is the error of a request that was not sent because its
// report was withdrawn ([adapter.Withdrawn]) before any of it left the
// process.
var errWithdrawn = fmt.Errorf("herdr: not sent: %w", adapter.ErrWithdrawn)

// isWithdrawn reports whether the report ctx carries has been withdrawn.
func isWithdrawn(ctx context.Context) bool {
	select {
	case <-adapter.Withdrawn(ctx):
		return true
	default:
		return false
	}
}

// waitKey is the context key of a Report's wait context.
type waitKey struct{}

// withdrawable prepares a Report's contexts. call carries a withdrawal of
// its own, raised by withdraw (a Release of this adapter, while the Report
// runs) and by the one ctx carries (the registry's), if any: a request not
// yet sent is then dropped, one that may have left is waited for. The
// waits before a request is sent (the gate, the pane's turn and file lock)
// use the context [waitContext] finds in call, which also ends on
// withdrawal. stop must be called before the Report returns: it stops
// following the registry's withdrawal (which costs no goroutine unless the
// withdrawal comes: [adapter.AfterWithdraw]).
func withdrawable(ctx context.Context) (call context.Context, withdraw, stop func()) {
	outer := adapter.Withdrawn(ctx)
	inner, raise := adapter.WithWithdraw(ctx)
	wait, endWait := context.WithCancel(inner)
	withdraw = func() { raise(); endWait() }
	call = context.WithValue(inner, waitKey{}, wait)
	if outer == nil {
		return call, withdraw, endWait
	}
	select {
	case <-outer: // already withdrawn: no goroutine needed
		withdraw()
		return call, withdraw, endWait
	default:
	}
	stopWatch := adapter.AfterWithdraw(ctx, withdraw) // no goroutine until it is
	return call, withdraw, func() { stopWatch(); endWait() }
}

// waitContext returns the context for the waits before a request of ctx is
// sent: ctx, ended also by its withdrawal when ctx comes from
// [withdrawable].
func waitContext(ctx context.Context) context.Context {
	if w, ok := ctx.Value(waitKey{}).(context.Context); ok {
		return w
	}
	return ctx
}
