package herdr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/cmdrun"
)

// knownCodes are the error codes of Herdr's JSON error responses that the
// adapter recognises and repeats in diagnostics, on either transport. Any
// other output is summarised by its size only: what Herdr writes is never
// logged. Read-only.
var knownCodes = map[string]bool{
	"server_not_running":  true,
	"protocol_mismatch":   true,
	"pane_not_found":      true,
	"invalid_agent":       true,
	"server_unavailable":  true,
	"invalid_request":     true,
	codeInvalidResume:     true,
	codeResumeNotAccepted: true,
}

// CallError is the error of a Herdr call that did not deliver, over either
// transport. Report and Release return it wrapped; use errors.As to inspect
// it.
type CallError struct {
	// Op is the operation: [OpReport] or [OpRelease].
	Op Op
	// Kind is the diagnostic kind: spawn_failed, timeout or
	// protocol_rejected.
	Kind adapter.Kind
	// Code is the error code Herdr printed (e.g. "server_not_running"),
	// when it is one the adapter knows; otherwise "".
	Code string
	// Exit is the CLI child's exit status, or -1 when it did not exit on
	// its own (it could not start, or it was killed) and for the socket.
	Exit int
	// Output is the number of bytes the child wrote to stdout and stderr,
	// or the size of the socket's response.
	Output int64
	// Err is the underlying error, if any (from os/exec, the connection or
	// the context).
	Err error

	socket      bool // the call went over the socket
	socketLevel bool // the connection itself failed: ping again
}

// Detail is the bounded, fixed-vocabulary account used in diagnostics, e.g.
// "exit 1: server_not_running" (CLI) or "socket: server_not_running". It
// never quotes what Herdr wrote.
func (e *CallError) Detail() string {
	var run *cmdrun.Error
	switch {
	case e.Kind == adapter.KindTimeout && errors.Is(e.Err, errWaitTimeout):
		return "another call on the pane did not finish in time"
	case e.Kind == adapter.KindTimeout && errors.Is(e.Err, errNoTimeLeft):
		return "the deadline passed before the call could start"
	case e.socket:
		return socketDetail(e)
	case e.Kind == adapter.KindTimeout:
		return "killed at the deadline"
	case errors.As(e.Err, &run):
		return run.Detail()
	}
	return "failed"
}

func (e *CallError) Error() string {
	return fmt.Sprintf("herdr: %s: %s: %s", e.Op, e.Kind, e.Detail())
}

// Unwrap returns the underlying error.
func (e *CallError) Unwrap() error { return e.Err }

// cliTransport runs the Herdr CLI, one process per request, through
// cmdrun: argv only, HERDR_SOCKET_PATH pinned in the child's environment,
// the process group killed at the deadline or when the call is abandoned
// and again once it is over, a parent-death signal on Linux, and stdout and
// stderr kept up to 64 KiB each, only to find Herdr's JSON error code.
type cliTransport struct {
	bin string   // absolute path of the Herdr executable
	env []string // the child's environment, HERDR_SOCKET_PATH pinned

	// expire, in tests only, ends to make the calls in flight reach their
	// deadline then, whatever the clock says (no test races a timer). Nil
	// in production.
	expire context.Context
}

// send runs the CLI once with req's arguments and classifies the result.
// The child is killed at deadline (a timeout CallError), when ctx ends
// (ctx's error, no diagnostic) and when closed ends ([adapter.ErrClosed]).
// When the report ctx carries is withdrawn before the child starts, none is
// started and send returns [errWithdrawn]; a started child is waited for.
func (t *cliTransport) send(ctx, closed context.Context, deadline time.Time, req *request) error {
	left := time.Until(deadline)
	if left <= 0 {
		return &CallError{Op: req.op, Kind: adapter.KindTimeout, Exit: -1, Err: errNoTimeLeft}
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopClose := context.AfterFunc(closed, cancel) // Close kills an in-flight child
	defer stopClose()
	if t.expire != nil {
		defer context.AfterFunc(t.expire, cancel)()
	}
	r := cmdrun.Runner{Path: t.bin, Env: t.env, Timeout: left, WaitDelay: waitDelay, Recognize: recognize}
	_, err := r.Run(cctx, req.argv()...)
	var run *cmdrun.Error
	switch {
	case err == nil:
		return nil
	case t.expire != nil && t.expire.Err() != nil && ctx.Err() == nil:
		return &CallError{Op: req.op, Kind: adapter.KindTimeout, Exit: -1, Err: context.DeadlineExceeded}
	case errors.Is(err, adapter.ErrWithdrawn): // not started
		return errWithdrawn
	case errors.As(err, &run):
		return &CallError{Op: req.op, Kind: run.Kind, Code: run.Code, Exit: run.Exit, Output: run.Total, Err: run}
	case ctx.Err() != nil: // the caller's cancellation or deadline
		return ctx.Err()
	case closed.Err() != nil:
		return adapter.ErrClosed
	}
	return &CallError{Op: req.op, Kind: adapter.KindSpawnFailed, Exit: -1, Err: err}
}

// status asks the CLI for the server's version and protocol with `herdr
// status server --json` (CONTRACT §6: it always exits 0, and names the
// server's version and protocol when one runs). It fails when no server
// runs or the output is not that object.
func (t *cliTransport) status(ctx, closed context.Context, deadline time.Time) (pong, error) {
	left := time.Until(deadline)
	if left <= 0 {
		return pong{}, context.DeadlineExceeded
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopClose := context.AfterFunc(closed, cancel)
	defer stopClose()
	r := cmdrun.Runner{Path: t.bin, Env: t.env, Timeout: left, WaitDelay: waitDelay}
	out, err := r.Run(cctx, "status", "server", "--json")
	if err != nil {
		return pong{}, err
	}
	var st struct {
		Running  bool   `json:"running"`
		Version  string `json:"version"`
		Protocol int    `json:"protocol"`
	}
	if json.Unmarshal(bytes.TrimSpace(out.Stdout), &st) != nil || !st.Running || st.Protocol <= 0 {
		return pong{}, errors.New("herdr: status: no running server")
	}
	return pong{Version: st.Version, Protocol: st.Protocol}, nil
}

// recognize is cmdrun's Recognize: the Herdr error code on stderr.
func recognize(_, stderr []byte) string { return errorCode(stderr) }

// errorCode returns the error code of the first line of out that is a Herdr
// JSON error ({"id":…,"error":{"code":…}}) with a code the adapter knows.
func errorCode(out []byte) string {
	for line := range bytes.Lines(out) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var msg struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &msg) == nil && knownCodes[msg.Error.Code] {
			return msg.Error.Code
		}
	}
	return ""
}
