package herdrtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/panestate/panestate/internal/filelock"
)

// Errors returned by [Herdr] methods.
var (
	// ErrServerNotRunning is returned when the emulated server is stopped
	// ([Herdr.StopServer]).
	ErrServerNotRunning = errors.New("herdrtest: server not running")
	// ErrPaneNotFound is returned for a pane id the server does not know.
	ErrPaneNotFound = errors.New("herdrtest: pane not found")
)

// Options configures [Start]. The zero value is one pane, "w1:p1", not in
// view.
type Options struct {
	// Dir is where the emulator keeps its binary, state, control file, lock
	// and log. Empty means a new directory from os.MkdirTemp, removed by
	// Close; when set, the caller owns its cleanup.
	Dir string
	// Panes are the pane ids that exist. Default ["w1:p1"]. The first is the
	// "own" pane: [Herdr.Pane] and HERDR_PANE_ID in [Herdr.Env].
	Panes []string
	// InView lists the panes that are in the active tab of the active
	// workspace with a focused (or no) client: a working→idle completion
	// there shows "idle", elsewhere "done" (CONTRACT §3.9). Default none, so
	// idle after working shows "done". See also [Herdr.SetInView].
	InView []string
}

// Herdr is a running emulated Herdr: a fake herdr binary and the state of
// its server. Its methods are safe for concurrent use with each other and
// with running fake binaries (they take the same cross-process lock). After
// [Herdr.Close] they fail.
type Herdr struct {
	// Dir holds everything below.
	Dir string
	// Bin is the fake herdr executable (HERDR_BIN_PATH).
	Bin string
	// Socket is the emulated server's "socket" (HERDR_SOCKET_PATH): a JSON
	// file with the server state. Absent means no server is running.
	Socket string
	// Pane is the own pane id (HERDR_PANE_ID), the first of Options.Panes.
	Pane string

	panes   []string
	ownDir  bool
	mu      sync.Mutex
	inView  map[string]bool
	closed  bool
	control string
	log     string
	lock    string
}

// Start creates the directory, the fake binary, a running server's state
// with the panes of opts, and an empty control file (no fault).
func Start(opts Options) (*Herdr, error) {
	panes := opts.Panes
	if len(panes) == 0 {
		panes = []string{"w1:p1"}
	}
	seen := map[string]bool{}
	for _, p := range panes {
		if p == "" || seen[p] {
			return nil, fmt.Errorf("herdrtest: invalid or duplicate pane id %q", p)
		}
		seen[p] = true
	}
	inView := map[string]bool{}
	for _, p := range opts.InView {
		if !seen[p] {
			return nil, fmt.Errorf("herdrtest: in-view pane %q: %w", p, ErrPaneNotFound)
		}
		inView[p] = true
	}
	h := &Herdr{Dir: opts.Dir, Pane: panes[0], panes: panes, inView: inView}
	if h.Dir == "" {
		dir, err := os.MkdirTemp("", "herdrtest-")
		if err != nil {
			return nil, fmt.Errorf("herdrtest: %w", err)
		}
		h.Dir, h.ownDir = dir, true
	} else if err := os.MkdirAll(h.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("herdrtest: %w", err)
	}
	h.Bin = filepath.Join(h.Dir, binName)
	if runtime.GOOS == "windows" {
		h.Bin += ".exe"
	}
	h.Socket = filepath.Join(h.Dir, socketName)
	h.control = filepath.Join(h.Dir, controlName)
	h.log = filepath.Join(h.Dir, logName)
	h.lock = filepath.Join(h.Dir, lockName)
	err := errors.Join(
		linkExecutable(h.Bin),
		writeFileAtomic(h.control, []byte("{}")),
		os.WriteFile(h.log, nil, 0o600),
		saveState(h.Socket, newServerState(panes, inView)),
	)
	if err != nil {
		if h.ownDir {
			os.RemoveAll(h.Dir)
		}
		return nil, fmt.Errorf("herdrtest: start: %w", err)
	}
	return h, nil
}

// linkExecutable places bin as a hard link to the current executable, or a
// symbolic link, or a copy.
func linkExecutable(bin string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("herdrtest: find executable: %w", err)
	}
	if os.Link(exe, bin) == nil || os.Symlink(exe, bin) == nil {
		return nil
	}
	src, err := os.Open(exe)
	if err != nil {
		return fmt.Errorf("herdrtest: copy executable: %w", err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return fmt.Errorf("herdrtest: copy executable: %w", err)
	}
	_, cerr := io.Copy(dst, src)
	if err := errors.Join(cerr, dst.Close()); err != nil {
		return fmt.Errorf("herdrtest: copy executable: %w", err)
	}
	return nil
}

// StartT is [Start] for tests: it fails tb on error and registers
// [Herdr.Close] with tb.Cleanup.
func StartT(tb testing.TB, opts Options) *Herdr {
	tb.Helper()
	h, err := Start(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := h.Close(); err != nil {
			tb.Error(err)
		}
	})
	return h
}

// Close kills any grandchild the Grandchild fault left behind and removes
// the directory if Start created it. It is idempotent. Fake binaries still
// running (a Hang fault) are not killed: they belong to whoever started them.
func (h *Herdr) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	if calls, err := h.Calls(); err == nil {
		for _, c := range calls {
			if c.GrandchildPID > 0 {
				if p, err := os.FindProcess(c.GrandchildPID); err == nil {
					_ = p.Kill()
					_ = p.Release()
				}
			}
		}
	}
	if !h.ownDir {
		return nil
	}
	// On Windows a just-killed grandchild may hold its image for a moment.
	var err error
	for range 50 {
		if err = os.RemoveAll(h.Dir); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("herdrtest: close: %w", err)
}

// Env returns the variables Herdr gives every pane process, for the own pane:
// HERDR_ENV, HERDR_BIN_PATH, HERDR_PANE_ID, HERDR_SOCKET_PATH,
// HERDR_WORKSPACE_ID and HERDR_TAB_ID, as KEY=value entries.
func (h *Herdr) Env() []string {
	ws := workspaceOf(h.Pane)
	return []string{
		"HERDR_ENV=1",
		"HERDR_BIN_PATH=" + h.Bin,
		"HERDR_PANE_ID=" + h.Pane,
		"HERDR_SOCKET_PATH=" + h.Socket,
		"HERDR_WORKSPACE_ID=" + ws,
		"HERDR_TAB_ID=" + ws + ":t1",
	}
}

// Setenv sets every variable of [Herdr.Env] with tb.Setenv, so the test
// process looks like it runs in the own pane. Like tb.Setenv it cannot be
// used in parallel tests.
func (h *Herdr) Setenv(tb testing.TB) {
	tb.Helper()
	for _, kv := range h.Env() {
		k, v, _ := strings.Cut(kv, "=")
		tb.Setenv(k, v)
	}
}

// Call is one invocation of the fake binary, as logged by it.
type Call struct {
	// Args is argv after the program name, exactly as received.
	Args []string `json:"args"`
	// Env holds every HERDR_* variable the process saw.
	Env map[string]string `json:"env"`
	// Start and End bracket the invocation (nanosecond precision). End is
	// zero for a call that hung or did not finish.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Exit is the exit code; -1 for a call that hung (Fault.Hang) or did
	// not finish.
	Exit int `json:"exit"`
	// Stdout and Stderr are the numbers of bytes written.
	Stdout int `json:"stdout_bytes"`
	Stderr int `json:"stderr_bytes"`
	// PID is the fake's process id.
	PID int `json:"pid"`
	// Hung is set for a call that started to hang (Fault.Hang). It is logged
	// when the hang starts.
	Hung bool `json:"hung,omitempty"`
	// Unfinished is set for a call that started but never logged its end:
	// it was killed (at a caller's deadline, say) while it ran, it hung
	// (then Hung is set too), or it is still running. Its Exit is -1, End
	// is zero, and Stdout, Stderr and GrandchildPID are not known (0).
	// Every invocation logs a start record on entry, so such calls are
	// counted (not logged).
	Unfinished bool `json:"-"`
	// GrandchildPID is the process the Grandchild fault started, if any.
	GrandchildPID int `json:"grandchild_pid,omitempty"`

	// Command is the command path parsed from Args, e.g. "pane report-agent"
	// or "--version" (convenience, not logged).
	Command string `json:"-"`
	// Pane is the positional pane id of pane and agent commands, or "".
	Pane string `json:"-"`
}

// Flag returns the value following the last "--name" in Args. It is a plain
// scan for assertions, not Herdr's parser: a value that itself equals
// "--name" is skipped over as a value.
func (c Call) Flag(name string) (string, bool) {
	var v string
	found := false
	for i := 0; i+1 < len(c.Args); i++ {
		if c.Args[i] == "--"+name {
			v, found = c.Args[i+1], true
			i++
		}
	}
	return v, found
}

// Calls returns every logged invocation, each once: a finished call in the
// order the calls finished, a hung call where it started to hang, and an
// unfinished one (killed, or still running: see [Call.Unfinished]) where it
// started.
func (h *Herdr) Calls() ([]Call, error) {
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

// AgentInfo is the emulated AgentInfo that `herdr agent get` prints
// (CONTRACT §4), fields in Herdr's serialization order. Fields the emulator
// has no value for (name, title, cwd, agent_session, ...) are never present.
type AgentInfo struct {
	TerminalID     string `json:"terminal_id"`
	Agent          string `json:"agent,omitempty"`
	AgentStatus    string `json:"agent_status"` // idle, working, blocked, done or unknown
	WorkspaceID    string `json:"workspace_id"`
	TabID          string `json:"tab_id"`
	PaneID         string `json:"pane_id"`
	Focused        bool   `json:"focused"`
	StateChangeSeq uint64 `json:"state_change_seq"`
	Revision       uint64 `json:"revision"`

	// Found is false when `agent get` would fail with agent_not_found: the
	// pane does not exist or has no agent label. The other fields still
	// describe an existing pane (AgentStatus "unknown" after a release).
	Found bool `json:"-"`
}

// withState runs fn on the server state under the cross-process lock and
// saves the state if fn reports a change.
func (h *Herdr) withState(fn func(st *serverState) (changed bool, err error)) error {
	unlock, err := filelock.Lock(h.lock)
	if err != nil {
		return fmt.Errorf("herdrtest: %w", err)
	}
	defer unlock()
	st, err := loadState(h.Socket)
	if err == errNoServer {
		return ErrServerNotRunning
	} else if err != nil {
		return err
	}
	changed, err := fn(st)
	if err != nil || !changed {
		return err
	}
	return saveState(h.Socket, st)
}

// Agent returns what `herdr agent get <pane>` would print, read from the
// state directly (no subprocess and no log entry). It fails only when the
// server is stopped or the state cannot be read.
func (h *Herdr) Agent(pane string) (AgentInfo, error) {
	var info AgentInfo
	err := h.withState(func(st *serverState) (bool, error) {
		if p := st.pane(pane); p != nil {
			info = p.agentInfo()
		}
		return false, nil
	})
	return info, err
}

// HighWater returns the sequence high-water mark of source on pane, and
// whether there is one.
func (h *Herdr) HighWater(pane, source string) (uint64, bool) {
	var hwm uint64
	var ok bool
	_ = h.withState(func(st *serverState) (bool, error) {
		if p := st.pane(pane); p != nil {
			hwm, ok = p.HWM[source]
		}
		return false, nil
	})
	return hwm, ok
}

// Fault tells the fake binary to misbehave. It applies to every later
// invocation until replaced, in this order: Hang, SleepMs, Grandchild,
// SpewBytes, Garbage, ExitUsage, then the normal command, where
// ServerNotRunning, ProtocolMismatch and FailFirst act like the server
// would. The zero value is no fault.
type Fault struct {
	// Hang makes the process sleep until killed. The call is logged (Hung,
	// Unfinished, Exit -1) when the hang starts; the lock is not held while
	// hanging.
	Hang bool `json:"hang,omitempty"`
	// HangIgnoreTERM makes a hanging process ignore SIGTERM (Unix).
	HangIgnoreTERM bool `json:"hang_ignore_term,omitempty"`
	// Grandchild starts a grandchild that inherits stdout and stderr and
	// sleeps one minute, then carries on normally: a caller reading the
	// pipes sees them stay open after the fake exits (exec.Cmd.WaitDelay).
	// Close kills such grandchildren.
	Grandchild bool `json:"grandchild,omitempty"`
	// ServerNotRunning answers server_not_running as if nothing listened.
	ServerNotRunning bool `json:"server_not_running,omitempty"`
	// ProtocolMismatch is the server protocol to claim, e.g. 19; commands
	// that talk to the server then fail with protocol_mismatch, and status
	// reports it. 0 means none.
	ProtocolMismatch int `json:"protocol_mismatch,omitempty"`
	// ExitUsage exits 2 with a usage line on stderr.
	ExitUsage bool `json:"exit_usage,omitempty"`
	// SleepMs sleeps this long before answering.
	SleepMs int `json:"sleep_ms,omitempty"`
	// SpewBytes writes this many bytes to stdout and to stderr first.
	SpewBytes int `json:"spew_bytes,omitempty"`
	// FailFirst makes the next N report-agent, release-agent and
	// report-agent-session calls (counted across processes from SetFault)
	// fail with a server_unavailable JSON error, exit 1, changing nothing.
	FailFirst int `json:"fail_first,omitempty"`
	// Garbage prints non-JSON, non-UTF-8 bytes to stderr and exits 1.
	Garbage bool `json:"garbage,omitempty"`
}

// SetFault replaces the fault applied to later invocations and restarts the
// FailFirst count.
func (h *Herdr) SetFault(f Fault) error {
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("herdrtest: %w", err)
	}
	err = h.withState(func(st *serverState) (bool, error) {
		st.FailUse = 0
		return true, writeFileAtomic(h.control, data)
	})
	if err == ErrServerNotRunning {
		return writeFileAtomic(h.control, data)
	}
	return err
}

// StopServer removes the server state: every later command finds no server,
// and the authorities and high-water marks are gone.
func (h *Herdr) StopServer() error {
	unlock, err := filelock.Lock(h.lock)
	if err != nil {
		return fmt.Errorf("herdrtest: %w", err)
	}
	defer unlock()
	if err := os.Remove(h.Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("herdrtest: stop server: %w", err)
	}
	return nil
}

// StartServer starts a fresh server with the same panes and view, as a
// restart would: no authority, no high-water mark (CONTRACT §3.3). Starting a
// running server restarts it.
func (h *Herdr) StartServer() error {
	unlock, err := filelock.Lock(h.lock)
	if err != nil {
		return fmt.Errorf("herdrtest: %w", err)
	}
	defer unlock()
	h.mu.Lock()
	st := newServerState(h.panes, h.inView)
	h.mu.Unlock()
	return saveState(h.Socket, st)
}

// Focus does what `herdr agent focus <pane>` does to the status: it marks the
// pane seen, so "done" shows as "idle". Unlike a real focus it does not move
// the view; see [Herdr.SetInView].
func (h *Herdr) Focus(pane string) error {
	return h.withState(func(st *serverState) (bool, error) {
		p := st.pane(pane)
		if p == nil {
			return false, fmt.Errorf("herdrtest: focus %q: %w", pane, ErrPaneNotFound)
		}
		p.Seen = true
		return true, nil
	})
}

// SetInView puts pane in or out of the active tab of the active workspace
// with a focused client. Bringing a pane into view marks it seen, as
// switching to its tab does. The setting survives StopServer/StartServer.
func (h *Herdr) SetInView(pane string, inView bool) error {
	if !slices.Contains(h.panes, pane) {
		return fmt.Errorf("herdrtest: set in view %q: %w", pane, ErrPaneNotFound)
	}
	h.mu.Lock()
	h.inView[pane] = inView
	h.mu.Unlock()
	return h.withState(func(st *serverState) (bool, error) {
		p := st.pane(pane)
		if p == nil {
			return false, fmt.Errorf("herdrtest: set in view %q: %w", pane, ErrPaneNotFound)
		}
		p.InView = inView
		if inView {
			p.Seen = true
		}
		return true, nil
	})
}
