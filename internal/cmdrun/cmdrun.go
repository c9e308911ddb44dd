package cmdrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/panestate/panestate/adapter"
)

// Defaults of a [Runner] whose fields are zero.
const (
	// DefaultTimeout is the deadline of one call.
	DefaultTimeout = 5 * time.Second
	// DefaultWaitDelay is how long a call waits, once its child exited or
	// was killed, for a grandchild to let go of the child's output pipes.
	DefaultWaitDelay = 500 * time.Millisecond
	// DefaultMaxOutput is how many bytes of the child's stdout, and of its
	// stderr, are kept.
	DefaultMaxOutput = 64 << 10
)

// Runner runs one program, once per call to [Runner.Run]. Set its fields
// before the first Run and do not change them afterwards; Run may then be
// called from any number of goroutines at once.
type Runner struct {
	// Path is the program to run. It must be absolute: a relative path is
	// refused (spawn_failed) rather than resolved against a working
	// directory or a PATH that could name something else. Use [LookPath]
	// to find it in a captured environment.
	Path string
	// Env is the child's whole environment, in os.Environ form. Unlike
	// os/exec, nil means an empty environment, never the host's: pass the
	// adapter's captured environment.
	Env []string
	// Dir is the child's working directory; "" means the host's.
	Dir string
	// Timeout is the deadline of each call, counted from its start; zero
	// or less means [DefaultTimeout].
	Timeout time.Duration
	// WaitDelay bounds the wait for the child's output pipes once it has
	// exited or been killed (os/exec's Cmd.WaitDelay); zero or less means
	// [DefaultWaitDelay].
	WaitDelay time.Duration
	// MaxOutput is how many bytes of stdout, and of stderr, are kept; the
	// rest is read and discarded so that the child never blocks on a full
	// pipe. Zero or less means [DefaultMaxOutput].
	MaxOutput int
	// Recognize, when set, is called with the captured output of a call
	// that exited non-zero and returns the program's error code, when the
	// output carries one the adapter knows (e.g. "no_server"), or "". The
	// result is put in [Error.Code] and shown by [Error.Detail], so it must
	// come from a fixed vocabulary: never return a piece of the output
	// itself. It must be safe for concurrent use.
	Recognize func(stdout, stderr []byte) string
}

// Output is what a child wrote.
type Output struct {
	// Stdout and Stderr are the first [Runner.MaxOutput] bytes of each
	// stream. They are the workspace's words (and may echo the call's
	// arguments): never log them raw.
	Stdout, Stderr []byte
	// Total is how many bytes the child wrote to both streams, kept or
	// not.
	Total int64
}

// Error is the error of a call that did not succeed for a reason of the
// program's (not because the caller's context ended). Use errors.As to get
// it from [Runner.Run]'s error.
type Error struct {
	// Kind is the diagnostic kind: [adapter.KindSpawnFailed],
	// [adapter.KindTimeout] or [adapter.KindProtocolRejected].
	Kind adapter.Kind
	// Name is the base name of the program, for messages.
	Name string
	// Code is what [Runner.Recognize] made of the output, or "".
	Code string
	// Exit is the child's exit status, or -1 when it did not exit on its
	// own (it could not start, was killed at the deadline, or died of a
	// signal).
	Exit int
	// Output is what the child wrote, bounded.
	Output
	// Timeout is the deadline that passed, for [adapter.KindTimeout].
	Timeout time.Duration
	// Err is the underlying error (from os/exec, or
	// context.DeadlineExceeded at the deadline).
	Err error
}

// Detail is a bounded account of the failure in a fixed vocabulary, for
// diagnostics: "could not start: …", "killed at the 5s deadline", "exit 1:
// no_server", "exit 1: no output", "exit 1: unrecognised output (42
// bytes)", "terminated by a signal". It never quotes the child's output.
func (e *Error) Detail() string {
	switch e.Kind {
	case adapter.KindSpawnFailed:
		if e.Err != nil {
			return "could not start: " + e.Err.Error()
		}
		return "could not start"
	case adapter.KindTimeout:
		return fmt.Sprintf("killed at the %s deadline", e.Timeout)
	}
	switch {
	case e.Code != "":
		if e.Exit < 0 {
			return "terminated by a signal: " + e.Code
		}
		return fmt.Sprintf("exit %d: %s", e.Exit, e.Code)
	case e.Exit < 0:
		return "terminated by a signal"
	case e.Total == 0:
		return fmt.Sprintf("exit %d: no output", e.Exit)
	}
	return fmt.Sprintf("exit %d: unrecognised output (%d bytes)", e.Exit, e.Total)
}

// Error returns "cmdrun: <name>: <kind>: <detail>".
func (e *Error) Error() string {
	return fmt.Sprintf("cmdrun: %s: %s: %s", e.Name, e.Kind, e.Detail())
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// errRelative is the spawn failure of a Runner whose Path is not absolute.
var errRelative = errors.New("program path is not absolute")

// Run runs the program once with args (argv[1:], each one passed as it is)
// and waits for it.
//
// ctx bounds the call together with the Runner's Timeout. When ctx is
// already done, nothing is started. When the report ctx carries has been
// withdrawn ([adapter.Withdrawn]) before the child is started, nothing is
// started and Run returns an error wrapping [adapter.ErrWithdrawn] and no
// [*Error]; once the child has started, a withdrawal changes nothing: the
// child may already have told the workspace, so Run waits for it as usual,
// until it exits, the Timeout passes or ctx ends. When ctx ends during the call, the child
// (and on Unix its process group) is killed, and Run returns an error
// wrapping ctx's error and no [*Error]: the caller gave up, the program did
// not fail. Otherwise the error is nil (the child exited 0) or an [*Error].
// The [Output] is returned in every case where a child ran.
//
// Run is safe for concurrent use. It starts one goroutine per captured
// stream, inside os/exec, and none outlives it.
func (r *Runner) Run(ctx context.Context, args ...string) (Output, error) {
	name := filepath.Base(r.Path)
	if err := ctx.Err(); err != nil {
		return Output{}, fmt.Errorf("cmdrun: %s: %w", name, err)
	}
	if withdrawn(ctx) {
		return Output{}, fmt.Errorf("cmdrun: %s: %w", name, adapter.ErrWithdrawn)
	}
	if !filepath.IsAbs(r.Path) {
		return Output{}, &Error{Kind: adapter.KindSpawnFailed, Name: name, Exit: -1, Err: fmt.Errorf("%w: %q", errRelative, r.Path)}
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := r.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.CommandContext(cctx, r.Path, args...)
	cmd.Env = r.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = r.Dir
	stdout := &boundedBuffer{limit: limit}
	stderr := &boundedBuffer{limit: limit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = r.WaitDelay
	if cmd.WaitDelay <= 0 {
		cmd.WaitDelay = DefaultWaitDelay
	}
	setProcAttr(cmd)

	if lockThread {
		// The parent-death signal fires when the forking thread exits:
		// keep this goroutine, and so that thread, busy until the child
		// has been waited for.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	if withdrawn(ctx) { // the last moment before anything can leave
		return Output{}, fmt.Errorf("cmdrun: %s: %w", name, adapter.ErrWithdrawn)
	}
	err := cmd.Run()
	// Nothing the child started may outlive the call, whatever its exit.
	killGroup(cmd)
	out := Output{Stdout: stdout.buf, Stderr: stderr.buf, Total: stdout.total + stderr.total}

	if err == nil || cmd.ProcessState != nil && cmd.ProcessState.Success() {
		// Exit 0. A grandchild that held a pipe past WaitDelay
		// (exec.ErrWaitDelay) does not undo what the child did.
		return out, nil
	}
	if cmd.Process == nil && cctx.Err() == nil {
		return out, &Error{Kind: adapter.KindSpawnFailed, Name: name, Exit: -1, Err: spawnCause(err)}
	}
	if cctx.Err() != nil {
		if ctx.Err() != nil { // the caller's cancellation or deadline
			return out, fmt.Errorf("cmdrun: %s: %w", name, ctx.Err())
		}
		return out, &Error{Kind: adapter.KindTimeout, Name: name, Exit: -1, Output: out, Timeout: timeout, Err: context.DeadlineExceeded}
	}
	e := &Error{Kind: adapter.KindProtocolRejected, Name: name, Exit: -1, Output: out, Err: err}
	if cmd.ProcessState != nil {
		e.Exit = cmd.ProcessState.ExitCode()
	}
	if r.Recognize != nil {
		e.Code = r.Recognize(out.Stdout, out.Stderr)
	}
	return out, e
}

// withdrawn reports whether the report ctx carries has been withdrawn.
func withdrawn(ctx context.Context) bool {
	select {
	case <-adapter.Withdrawn(ctx):
		return true
	default:
		return false
	}
}

// spawnCause strips os/exec's "fork/exec <path>: " wrapping down to the
// reason, which is what a diagnostic needs (the path is known already).
func spawnCause(err error) error {
	for inner := errors.Unwrap(err); inner != nil; inner = errors.Unwrap(err) {
		err = inner
	}
	return err
}

// boundedBuffer keeps the first limit bytes written to it and counts the
// rest, which it discards. It never fails a write. os/exec gives each
// stream its own copying goroutine, so one buffer is written by one
// goroutine.
type boundedBuffer struct {
	buf   []byte
	limit int
	total int64
}

// ReadFrom reads r to its end straight into the kept bytes, and through a
// small scratch buffer once they are full, so that os/exec's copy of each
// stream does not allocate its usual 32 KB buffer per call.
func (b *boundedBuffer) ReadFrom(r io.Reader) (int64, error) {
	var scratch []byte
	var n int64
	for {
		var p []byte
		if room := b.limit - len(b.buf); room > 0 {
			if len(b.buf) == cap(b.buf) {
				b.buf = slices.Grow(b.buf, min(room, max(len(b.buf), 512)))
			}
			p = b.buf[len(b.buf):min(cap(b.buf), b.limit)]
		} else {
			if scratch == nil {
				scratch = make([]byte, 4096)
			}
			p = scratch
		}
		m, err := r.Read(p)
		n += int64(m)
		b.total += int64(m)
		if len(b.buf) < b.limit && m > 0 {
			b.buf = b.buf[:len(b.buf)+m]
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.total += int64(len(p))
	if room := b.limit - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
