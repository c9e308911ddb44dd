package herdr

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/internal/wire"
)

// Error codes the adapter acts on.
const (
	codeInvalidResume     = string(wire.CodeInvalidResumeArgv) // 0.9.2+: the whole report was refused
	codeResumeNotAccepted = string(wire.CodeResumeNotAccepted) // 0.9.2+: the reporter does not hold the pane yet
)

// idRequest is the id of the adapter's requests. Herdr echoes it; any
// string is accepted.
const idRequest = "panestate:request"

// socketTransport talks to Herdr's API socket directly (a named pipe on
// Windows), one connection per request, as Herdr serves it (CONTRACT §2.1),
// through package wire. Responses are read up to wire.MaxResponse (64 KiB)
// and never logged.
type socketTransport struct {
	path string               // HERDR_SOCKET_PATH, as captured
	peer func(net.Conn) error // refuses a server of another user; nil: no check
}

// wireRequest returns req on the wire.
func (req *request) wireRequest() wire.Request {
	var params any
	if req.op == OpRelease {
		params = wire.ReleaseAgentParams{PaneID: req.pane, Source: req.source, Agent: req.agent, Seq: &req.seq}
	} else {
		p := wire.ReportAgentParams{
			PaneID: req.pane, Source: req.source, Agent: req.agent,
			State: wire.AgentState(req.state), Seq: &req.seq, ResumeArgv: req.resume,
		}
		if req.message != "" {
			p.Message = &req.message
		}
		if req.sessionID != "" {
			p.AgentSessionID = &req.sessionID
		}
		if req.sessionPath != "" {
			p.AgentSessionPath = &req.sessionPath
		}
		params = p
	}
	r, err := wire.NewRequest(idRequest, wire.Method(req.op.method()), params)
	if err != nil { // strings, a valid state and a number: cannot fail
		panic(err)
	}
	return r
}

// send delivers req: nil for a result, a protocol_rejected CallError with
// Herdr's error code for an error response. When the report ctx carries is
// withdrawn before the request is written, nothing is written and send
// returns [errWithdrawn]; once written, the answer is waited for until ctx,
// closed or deadline ends, whatever the withdrawal.
func (t *socketTransport) send(ctx, closed context.Context, deadline time.Time, req *request) error {
	resp, err := wire.DoGuarded(ctx, t.path, req.wireRequest(),
		wire.Guard{Stop: adapter.Withdrawn(ctx), Peer: t.peer, Deadline: deadline, Closed: closed})
	if errors.Is(err, wire.ErrNotSent) {
		return errWithdrawn
	}
	if err != nil {
		return socketError(ctx, closed, req.op, err)
	}
	if resp.Error != nil {
		ce := &CallError{Op: req.op, Kind: adapter.KindProtocolRejected, Exit: -1, socket: true, Err: resp.Error}
		if knownCodes[string(resp.Error.Code)] {
			ce.Code = string(resp.Error.Code)
		}
		return ce
	}
	return nil
}

// ping asks the server for its version and protocol.
func (t *socketTransport) ping(ctx, closed context.Context, deadline time.Time) (pong, error) {
	p, err := wire.PingGuarded(ctx, t.path, wire.Guard{Peer: t.peer, Deadline: deadline, Closed: closed})
	if err != nil {
		return pong{}, socketError(ctx, closed, OpReport, err)
	}
	return pong{Version: p.Version, Protocol: p.Protocol}, nil
}

// socketError classifies a failed exchange: ctx's own error, ErrClosed, or
// a CallError (timeout at the call's deadline; protocol_rejected with
// server_not_running when nothing listens, as the CLI reports it; otherwise
// protocol_rejected). All of these are socket-level: the server is pinged
// again before the next call.
func socketError(ctx, closed context.Context, op Op, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case closed.Err() != nil:
		return adapter.ErrClosed
	}
	if refusedPeer(err) { // not socket-level: the CLI would reach the same server
		return &CallError{Op: op, Kind: adapter.KindProtocolRejected, Exit: -1, socket: true, Err: err}
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		// The connection's deadline was the caller's, and passed a moment
		// before ctx noticed.
		return context.DeadlineExceeded
	}
	ce := &CallError{Op: op, Kind: adapter.KindProtocolRejected, Exit: -1, socket: true, socketLevel: true, Err: err}
	var conn *wire.ConnectError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		ce.Kind = adapter.KindTimeout
	case errors.As(err, &conn) && conn.NotRunning():
		ce.Code = "server_not_running"
	}
	return ce
}

// socketDetail is CallError.Detail for a call over the socket.
func socketDetail(e *CallError) string {
	var conn *wire.ConnectError
	var foreign *foreignServerError
	switch {
	case errors.As(e.Err, &foreign):
		return "socket: refused: " + foreign.Error()
	case errors.Is(e.Err, errPeerUnknown):
		return "socket: refused: " + errPeerUnknown.Error()
	case e.Kind == adapter.KindTimeout:
		return "socket: no answer before the deadline"
	case e.Code != "":
		return "socket: " + e.Code
	case errors.As(e.Err, &conn):
		var errno syscall.Errno
		if errors.As(conn.Err, &errno) {
			return "socket: cannot connect: " + errno.Error()
		}
		return "socket: cannot connect"
	case errors.Is(e.Err, wire.ErrEmptyResponse):
		return "socket: closed without a response"
	case errors.Is(e.Err, wire.ErrResponseTooLarge):
		return fmt.Sprintf("socket: response over %d bytes", wire.MaxResponse)
	case errors.Is(e.Err, wire.ErrMalformedResponse):
		return "socket: unrecognised response"
	case !e.socketLevel:
		return "socket: unrecognised error response"
	}
	return "socket: connection failed"
}
