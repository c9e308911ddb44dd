package herdrtest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
	"github.com/panestate/panestate/internal/filelock"
)

// Transport is how a request reached the emulated server.
type Transport string

// The two transports.
const (
	// TransportCLI: an invocation of the fake herdr binary, a process.
	TransportCLI Transport = "cli"
	// TransportSocket: a request a client sent on the socket itself; no
	// process was spawned.
	TransportSocket Transport = "socket"
)

// MarshalText returns "cli" or "socket".
func (t Transport) MarshalText() ([]byte, error) { return []byte(t), nil }

// UnmarshalText accepts "cli" and "socket".
func (t *Transport) UnmarshalText(text []byte) error {
	switch v := Transport(text); v {
	case TransportCLI, TransportSocket:
		*t = v
		return nil
	}
	return fmt.Errorf("herdrtest: unknown transport %q", text)
}

// Call is one request to the emulator: an invocation of the fake binary
// (TransportCLI), or a request line a client sent on the socket
// (TransportSocket). A CLI call's own connections to the server (its ping
// and its request) are part of it, not calls of their own.
type Call struct {
	// Transport is how the call reached the emulator.
	Transport Transport `json:"transport"`
	// Args is the CLI's argv after the program name, exactly as received;
	// nil for a socket call.
	Args []string `json:"args"`
	// Env holds every HERDR_* variable the CLI process saw; nil for a
	// socket call.
	Env map[string]string `json:"env"`
	// Start and End bracket the call (nanosecond precision): the process's
	// life, or for a socket call the time from the request line's arrival
	// to its handling, just before the answer is written. End is zero for a
	// call that hung or did not finish.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Exit is the CLI's exit code. For a socket call: 0 for a success
	// response, 1 for an error response (or garbage), -1 for none.
	// -1 also for a CLI call that hung or did not finish.
	Exit int `json:"exit"`
	// Stdout and Stderr are the numbers of bytes the CLI wrote.
	Stdout int `json:"stdout_bytes"`
	Stderr int `json:"stderr_bytes"`
	// PID is the fake's process id, or a socket client's when the
	// platform tells it (Linux, macOS, Windows), else 0.
	PID int `json:"pid"`
	// Hung is set for a call that started to hang (Fault.Hang).
	Hung bool `json:"hung,omitempty"`
	// Unfinished is set for a CLI call that started but never logged its
	// end: it was killed (at a caller's deadline, say) while it ran, it
	// hung (then Hung is set too), or it is still running; and for a hung
	// socket call. Its Exit is -1, End is zero, and Stdout, Stderr and
	// GrandchildPID are not known (0).
	Unfinished bool `json:"-"`
	// GrandchildPID is the process the Grandchild fault started, if any.
	GrandchildPID int `json:"grandchild_pid,omitempty"`

	// The fields below are not logged by the fake binary; Calls fills
	// them in.

	// Command is the command path: parsed from Args ("pane report-agent",
	// "--version"), or for a socket call the command of its method
	// ("pane report-agent" for pane.report_agent, "ping" for ping).
	Command string `json:"-"`
	// Pane is the pane id of pane and agent commands, or "".
	Pane string `json:"-"`
	// Arrival is the call's place in the order in which the server
	// received request lines, from 1, over both transports. For a CLI call
	// it is that of its request (not of its ping); 0 when the call never
	// sent one (an argv error, a fault, no server, a protocol mismatch).
	// Compare Arrival to learn which of two calls the server handled
	// first.
	Arrival int `json:"-"`
	// Method, Params and Code are the request the server received and the
	// error code it answered ("" for success), when Arrival is set. A CLI
	// call whose protocol check failed on an error answer to its ping (no
	// request followed, Arrival is 0) has that answer's code in Code.
	Method string          `json:"-"`
	Params json.RawMessage `json:"-"`
	Code   string          `json:"-"`
	// Applied reports whether the request took effect: an accepted report
	// or release, or a stored session, rather than an ok that the server
	// silently ignored (a stale seq, a non-owner release: CONTRACT §3).
	Applied bool `json:"-"`
	// Status is what the call's pane showed right after the server handled
	// it, when Arrival is set and the pane exists.
	Status Status `json:"-"`
	// Agent is the agent label the call's pane showed right after the
	// server handled it, when Status is set: "" when it showed no agent
	// (after a release, say), whatever Status says.
	Agent string `json:"-"`
	// Handled is when the server handled the request (applied it, or
	// decided to ignore it), when Arrival is set: for a CLI call, before
	// the process exits; for a socket call, just before the answer is
	// written. Use it to time a report from publish to application.
	Handled time.Time `json:"-"`
}

// Flag returns the value of option name: for a CLI call the value
// following the last "--name" in Args (a plain scan for assertions, not
// Herdr's parser: a value that itself equals "--name" is skipped over as a
// value); for a socket call the request's param of that name, dashes read
// as underscores ("agent-session-id" is agent_session_id), numbers in
// decimal.
func (c Call) Flag(name string) (string, bool) {
	if c.Transport == TransportSocket {
		var params map[string]json.RawMessage
		if json.Unmarshal(c.Params, &params) != nil {
			return "", false
		}
		raw, ok := params[strings.ReplaceAll(name, "-", "_")]
		if !ok || string(raw) == "null" {
			return "", false
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, true
		}
		return string(raw), true
	}
	var v string
	found := false
	for i := 0; i+1 < len(c.Args); i++ {
		if c.Args[i] == "--" {
			break
		}
		if c.Args[i] == "--"+name {
			v, found = c.Args[i+1], true
			i++
		}
	}
	return v, found
}

// ResumeArgv returns the resume argv the call carried: the words after a
// literal "--" in Args, or a socket request's resume_argv.
func (c Call) ResumeArgv() []string {
	if c.Transport == TransportSocket {
		var p struct {
			ResumeArgv []string `json:"resume_argv"`
		}
		_ = json.Unmarshal(c.Params, &p)
		return p.ResumeArgv
	}
	for i, a := range c.Args {
		if a == "--" {
			return append([]string(nil), c.Args[i+1:]...)
		}
	}
	return nil
}

// Seq returns the call's sequence number: its --seq, or its seq param.
func (c Call) Seq() (uint64, bool) {
	v, ok := c.Flag("seq")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(v, "+"), 10, 64)
	return n, err == nil
}

// Calls returns every call, each once, in the order they finished: a
// finished call at its end, a hung call where it started to hang, and an
// unfinished one (killed, or still running: see [Call.Unfinished]) where
// it started. Sort by [Call.Arrival] for the order the server received
// them.
func (h *Herdr) Calls() ([]Call, error) {
	cli, err := h.cliCalls()
	if err != nil {
		return nil, err
	}
	recs := h.srv.snapshot()
	byPID := map[int][]*record{}
	calls := make([]Call, 0, len(cli)+len(recs))
	for i := range recs {
		r := &recs[i]
		if r.cli {
			byPID[r.pid] = append(byPID[r.pid], r)
			continue
		}
		calls = append(calls, socketCall(r))
	}
	for _, c := range cli {
		for _, r := range byPID[c.PID] {
			if r.start.Before(c.Start) || (!c.End.IsZero() && r.start.After(c.End)) {
				continue
			}
			if r.method == wire.MethodPing {
				if r.code != "" && c.Arrival == 0 {
					c.Code = string(r.code) // the protocol check failed: no request followed
				}
				continue
			}
			c.Arrival, c.Method, c.Params, c.Code = r.arrival, string(r.method), r.params, string(r.code)
			c.Applied, c.Status, c.Agent, c.Handled = r.applied, r.status, r.agent, r.end
		}
		calls = append(calls, c)
	}
	sort.SliceStable(calls, func(i, j int) bool { return position(calls[i]).Before(position(calls[j])) })
	return calls, nil
}

// position is where a call is listed.
func position(c Call) time.Time {
	if c.End.IsZero() {
		return c.Start
	}
	return c.End
}

func socketCall(r *record) Call {
	c := Call{
		Transport: TransportSocket, Start: r.start, End: r.end, Exit: r.exit, PID: r.pid,
		Hung: r.hung, Unfinished: r.hung, Command: commandOfMethod(r.method), Pane: r.pane,
		Arrival: r.arrival, Method: string(r.method), Params: r.params, Code: string(r.code),
		Applied: r.applied, Status: r.status, Agent: r.agent, Handled: r.end,
	}
	if r.exit == -1 {
		c.End = time.Time{}
	}
	return c
}

// commandOfMethod names a method as the CLI command that sends it.
func commandOfMethod(m wire.Method) string {
	switch m {
	case "":
		return ""
	case wire.MethodPing:
		return "ping"
	}
	group, verb, ok := strings.Cut(string(m), ".")
	if !ok {
		return string(m)
	}
	return group + " " + strings.ReplaceAll(verb, "_", "-")
}

// cliCalls reads the invocation log the fake binaries write.
func (h *Herdr) cliCalls() ([]Call, error) {
	unlock, err := filelock.Lock(h.lock)
	if err != nil {
		return nil, fmt.Errorf("herdrtest: calls: %w", err)
	}
	defer unlock()
	f, err := os.Open(h.log)
	if err != nil {
		return nil, fmt.Errorf("herdrtest: calls: %w", err)
	}
	defer f.Close()
	var recs []logRecord
	completed := map[callKey]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r logRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("herdrtest: calls: %w", err)
		}
		if r.Phase != phaseStart {
			completed[keyOf(r.Call)] = true
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("herdrtest: calls: %w", err)
	}
	calls := make([]Call, 0, len(recs)/2+1)
	for _, r := range recs {
		c := r.Call
		switch {
		case r.Phase == phaseStart && completed[keyOf(c)]:
			continue // listed at its end or hang record
		case r.Phase == phaseStart:
			c.Unfinished = true
		case r.Phase == phaseHang:
			c.Unfinished = true
		}
		c.Transport = TransportCLI
		c.Command, c.Pane = commandOf(c.Args)
		calls = append(calls, c)
	}
	return calls, nil
}

// callKey identifies one invocation across its log records.
type callKey struct {
	pid   int
	start int64
}

func keyOf(c Call) callKey { return callKey{pid: c.PID, start: c.Start.UnixNano()} }

func commandOf(args []string) (command, pane string) {
	if len(args) == 0 {
		return "", ""
	}
	switch args[0] {
	case "pane", "agent", "status", "api":
		if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
			command = args[0] + " " + args[1]
			if (args[0] == "pane" || args[0] == "agent") && len(args) > 2 {
				pane = args[2]
			}
			return command, pane
		}
	}
	return args[0], ""
}

// WaitCalls blocks until cond holds for the calls ([Herdr.Calls]) and
// returns them. cond is called with the current calls first, then after
// every change: a request the server received or finished, a line a fake
// binary logged (seen through a file watch on [Herdr.Dir]). It fails with
// ctx's error, and the last calls seen, when ctx ends first (a ctx
// without a deadline ends after [WaitTimeout]), and with
// [ErrServerNotRunning] once h is closed and cond does not hold.
func (h *Herdr) WaitCalls(ctx context.Context, cond func([]Call) bool) ([]Call, error) {
	ctx, cancel := withWaitTimeout(ctx)
	defer cancel()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("herdrtest: wait for calls: %w", err)
	}
	defer w.Close()
	if err := w.Add(h.Dir); err != nil {
		return nil, fmt.Errorf("herdrtest: wait for calls: %w", err)
	}
	for {
		h.srv.mu.Lock()
		changed, closed := h.srv.changed, h.srv.closed
		h.srv.mu.Unlock()
		calls, err := h.Calls()
		if err != nil {
			return nil, err
		}
		if cond(calls) {
			return calls, nil
		}
		if closed {
			return calls, fmt.Errorf("herdrtest: wait for calls: closed: %w", ErrServerNotRunning)
		}
	wait:
		for {
			select {
			case <-changed:
				break wait
			case ev := <-w.Events:
				if filepath.Base(ev.Name) == logName {
					break wait
				}
			case err := <-w.Errors:
				return calls, fmt.Errorf("herdrtest: wait for calls: %w", err)
			case <-ctx.Done():
				return calls, fmt.Errorf("herdrtest: wait for calls: %w", ctx.Err())
			}
		}
	}
}
