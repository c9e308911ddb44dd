package herdr

import (
	"context"
	"strconv"
	"time"
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
