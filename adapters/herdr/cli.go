package herdr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"syscall"
	"time"

	"github.com/panestate/panestate/adapter"
)

// maxOutput is how many bytes of a child's stdout, and of its stderr, are
// kept; the rest is read and discarded so the child never blocks on a full
// pipe.
const maxOutput = 64 << 10

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
// "exit 1: server_not_running" (CLI) or "socket: server_not_running".
func (e *CallError) Detail() string {
	switch {
	case e.Kind == adapter.KindTimeout && errors.Is(e.Err, errWaitTimeout):
		return "another call on the pane did not finish in time"
	case e.Kind == adapter.KindSpawnFailed:
		if e.Err != nil {
			return "could not start: " + e.Err.Error()
		}
		return "could not start"
	case e.Kind == adapter.KindTimeout && e.socket:
		return "socket: no answer before the deadline"
	case e.Kind == adapter.KindTimeout:
		return "killed at the deadline"
	case e.socket && e.Code != "":
		return "socket: " + e.Code
	case e.socket && errors.Is(e.Err, errBadResponse), e.socket && errors.Is(e.Err, errLongResponse), e.socket && errors.Is(e.Err, errNoResponse):
		return fmt.Sprintf("socket: %v (%d bytes)", e.Err, e.Output)
	case e.socket && errors.Is(e.Err, errErrorResponse):
		return "socket: unrecognised error response"
	case e.socket:
		return "socket: cannot connect: " + connectDetail(e.Err)
	}
	switch {
	case e.Code != "":
		return fmt.Sprintf("exit %d: %s", e.Exit, e.Code)
	case e.Exit < 0:
		return "terminated by a signal"
	case e.Output == 0:
		return fmt.Sprintf("exit %d: no output", e.Exit)
	}
	return fmt.Sprintf("exit %d: unrecognised output (%d bytes)", e.Exit, e.Output)
}

func (e *CallError) Error() string {
	return fmt.Sprintf("herdr: %s: %s: %s", e.Op, e.Kind, e.Detail())
}

// connectDetail returns the system's reason for a failed connection, without
// the path (which the diagnostic names elsewhere).
func connectDetail(err error) string {
	var se syscall.Errno
	if errors.As(err, &se) {
		return se.Error()
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	if err != nil {
		return err.Error()
	}
	return "unknown error"
}

// Unwrap returns the underlying error.
func (e *CallError) Unwrap() error { return e.Err }

// boundedBuffer keeps the first limit bytes written to it and counts the
// rest, which it discards. It never fails a write.
type boundedBuffer struct {
	buf   []byte
	limit int
	total int64
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.total += int64(len(p))
	if room := b.limit - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// cliTransport runs the Herdr CLI, one process per request.
type cliTransport struct {
	bin string   // absolute path of the Herdr executable
	env []string // the child's environment, HERDR_SOCKET_PATH pinned
}

// send runs the CLI once with req's arguments and classifies the result.
// The child is killed at deadline (a timeout), when ctx ends (ctx's error,
// no diagnostic) and when closed ends ([adapter.ErrClosed]).
func (t *cliTransport) send(ctx, closed context.Context, deadline time.Time, req *request) error {
	cctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	stopClose := context.AfterFunc(closed, cancel) // Close kills an in-flight child
	defer stopClose()

	cmd := exec.CommandContext(cctx, t.bin, req.argv()...)
	cmd.Env = t.env
	var stdout, stderr boundedBuffer
	stdout.limit, stderr.limit = maxOutput, maxOutput
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = waitDelay
	setProcessGroup(cmd)

	err := cmd.Run()
	// Whatever happened, nothing the child started may outlive the call: a
	// helper left behind after a failed (or successful) exit is killed with
	// the group.
	killGroup(cmd)
	if err == nil || cmd.ProcessState != nil && cmd.ProcessState.Success() {
		// Exit 0. A grandchild that kept a pipe open past WaitDelay
		// (exec.ErrWaitDelay) does not undo a delivered report.
		return nil
	}
	op := req.op
	if cctx.Err() != nil {
		switch {
		case ctx.Err() != nil: // the caller's cancellation or deadline
			return ctx.Err()
		case closed.Err() != nil: // cancelled by Close
			return adapter.ErrClosed
		default: // the call's own deadline
			return &CallError{Op: op, Kind: adapter.KindTimeout, Exit: -1, Output: stdout.total + stderr.total, Err: context.DeadlineExceeded}
		}
	}
	if cmd.Process == nil {
		return &CallError{Op: op, Kind: adapter.KindSpawnFailed, Exit: -1, Err: err}
	}
	ce := &CallError{Op: op, Kind: adapter.KindProtocolRejected, Exit: -1, Output: stdout.total + stderr.total, Err: err}
	if cmd.ProcessState != nil {
		ce.Exit = cmd.ProcessState.ExitCode()
	}
	ce.Code = errorCode(stderr.buf)
	return ce
}

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
