package herdr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"

	"github.com/panestate/panestate/adapter"
)

// maxOutput is how many bytes of a child's stdout, and of its stderr, are
// kept; the rest is read and discarded so the child never blocks on a full
// pipe.
const maxOutput = 64 << 10

// knownCodes are the error codes of Herdr's JSON error line that the adapter
// recognises and repeats in diagnostics. Any other output is summarised by
// its size only: child output is never logged. Read-only.
var knownCodes = map[string]bool{
	"server_not_running": true,
	"protocol_mismatch":  true,
	"pane_not_found":     true,
	"invalid_agent":      true,
	"server_unavailable": true,
	"invalid_request":    true,
}

// CallError is the error of a Herdr CLI call that did not deliver. Report
// and Release return it wrapped; use errors.As to inspect it.
type CallError struct {
	// Op is the CLI operation: [OpReport] or [OpRelease].
	Op Op
	// Kind is the diagnostic kind: spawn_failed, timeout or
	// protocol_rejected.
	Kind adapter.Kind
	// Code is the error code Herdr printed (e.g. "server_not_running"),
	// when it is one the adapter knows; otherwise "".
	Code string
	// Exit is the child's exit status, or -1 when it did not exit on its
	// own (it could not start, or it was killed).
	Exit int
	// Output is the number of bytes the child wrote to stdout and stderr.
	Output int64
	// Err is the underlying error, if any (from os/exec or the context).
	Err error
}

// Detail is the bounded, fixed-vocabulary account used in diagnostics, e.g.
// "exit 1: server_not_running".
func (e *CallError) Detail() string {
	switch e.Kind {
	case adapter.KindSpawnFailed:
		if e.Err != nil {
			return "could not start: " + e.Err.Error()
		}
		return "could not start"
	case adapter.KindTimeout:
		return "killed at the deadline"
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

// call runs the Herdr CLI once with args and classifies the result. ctx
// bounds the call together with the adapter's timeout. When ctx itself ends
// (cancelled, or past the caller's own deadline) the child is killed and
// ctx's error is returned, with no diagnostic: only the adapter's own
// deadline is a timeout. The returned error is nil, ctx's error,
// [adapter.ErrClosed], or a *CallError.
func (a *Adapter) call(ctx context.Context, op Op, args []string) error {
	cctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	stopClose := context.AfterFunc(a.done, cancel) // Close kills an in-flight child
	defer stopClose()

	cmd := exec.CommandContext(cctx, a.bin, args...)
	cmd.Env = a.childEnv
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
	if cctx.Err() != nil {
		switch {
		case ctx.Err() != nil: // the caller's cancellation or deadline
			return ctx.Err() // deliver wraps it
		case a.done.Err() != nil: // cancelled by Close
			return adapter.ErrClosed
		default: // the adapter's own deadline
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
