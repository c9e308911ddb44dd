package herdrtest

import (
	"context"
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
)

// Errors returned by [Herdr] methods.
var (
	// ErrServerNotRunning is returned when the emulated server is stopped
	// ([Herdr.StopServer]).
	ErrServerNotRunning = errors.New("herdrtest: server not running")
	// ErrPaneNotFound is returned for a pane id the server does not know.
	ErrPaneNotFound = errors.New("herdrtest: pane not found")
)

// Options configures [Start]. The zero value is Herdr 0.8.2 with one pane,
// "w1:p1", not in view.
type Options struct {
	// Dir is where the emulator keeps its binary, socket, control file,
	// lock and log. Empty means a new directory from os.MkdirTemp, removed
	// by Close; when set, the caller owns its cleanup. When Dir is too long
	// for a Unix socket path, the socket goes in a short directory of its
	// own, removed by Close.
	Dir string
	// Panes are the pane ids that exist. Default ["w1:p1"]. The first is the
	// "own" pane: [Herdr.Pane] and HERDR_PANE_ID in [Herdr.Env].
	Panes []string
	// InView lists the panes that are in the active tab of the active
	// workspace with a focused (or no) client: a working→idle completion
	// there shows "idle", elsewhere "done" (CONTRACT §3.9). Default none, so
	// idle after working shows "done". See also [Herdr.SetInView].
	InView []string
	// Version is the Herdr version to emulate: [Version082] (the default)
	// or [Version093].
	Version string
}

// Herdr is a running emulated Herdr: a server listening at [Herdr.Socket]
// in this process, and a fake herdr binary that is a client of it. Its
// methods are safe for concurrent use with each other, with socket clients
// and with running fake binaries. After [Herdr.Close] the server is gone:
// state methods return [ErrServerNotRunning].
type Herdr struct {
	// Dir holds the binary, the control file and the log.
	Dir string
	// Bin is the fake herdr executable (HERDR_BIN_PATH).
	Bin string
	// Socket is the server's socket (HERDR_SOCKET_PATH): a Unix socket, or
	// on Windows a marker file whose named pipe is `\\.\pipe\` + Socket.
	Socket string
	// Pane is the own pane id (HERDR_PANE_ID), the first of Options.Panes.
	Pane string

	panes     []string
	v         version
	srv       *server
	ownDir    bool
	socketDir string // a short directory of the emulator's own for Socket, or ""
	control   string
	log       string
	lock      string
	closeOnce sync.Once
	closeErr  error
}

// Start creates the directory, the fake binary and an empty control file
// (no fault), and starts the server with the panes of opts.
func Start(opts Options) (*Herdr, error) {
	v, err := lookupVersion(opts.Version)
	if err != nil {
		return nil, err
	}
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
	h := &Herdr{Dir: opts.Dir, Pane: panes[0], panes: slices.Clone(panes), v: v}
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
	h.control = filepath.Join(h.Dir, controlName)
	h.log = filepath.Join(h.Dir, logName)
	h.lock = filepath.Join(h.Dir, lockName)
	err = errors.Join(
		h.pickSocket(),
		linkExecutable(h.Bin),
		h.writeControl(Fault{}),
		os.WriteFile(h.log, nil, 0o600),
	)
	if err == nil {
		h.srv = newServer(v, h.Socket, h.Dir, h.panes, inView)
		err = h.srv.start()
	}
	if err != nil {
		h.removeDirs()
		return nil, fmt.Errorf("herdrtest: start: %w", err)
	}
	return h, nil
}

// pickSocket places the socket in Dir, or in a short directory of its own
// when Dir is too long for a socket path.
func (h *Herdr) pickSocket() error {
	h.Socket = filepath.Join(h.Dir, socketName)
	if len(h.Socket) <= maxSocketPath {
		return nil
	}
	for _, base := range []string{"", "/tmp"} {
		dir, err := os.MkdirTemp(base, "herdr-")
		if err != nil {
			continue
		}
		if sock := filepath.Join(dir, socketName); len(sock) <= maxSocketPath {
			h.Socket, h.socketDir = sock, dir
			return nil
		}
		os.Remove(dir)
	}
	return fmt.Errorf("herdrtest: no directory short enough for a socket (%s is %d bytes)", h.Socket, len(h.Socket))
}

func (h *Herdr) removeDirs() {
	if h.socketDir != "" {
		os.RemoveAll(h.socketDir)
	}
	if h.ownDir {
		os.RemoveAll(h.Dir)
	}
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

// Version returns the emulated Herdr version, e.g. "0.8.2".
func (h *Herdr) Version() string { return h.v.name }

// Protocol returns the emulated server's socket protocol, e.g. 20.
func (h *Herdr) Protocol() int { return h.v.protocol }

// Close stops the server (closing every open connection), kills any
// grandchild the Grandchild fault left behind and removes the directories
// Start created. It is idempotent. Fake binaries still running (a Hang
// fault) are not killed: they belong to whoever started them.
func (h *Herdr) Close() error {
	h.closeOnce.Do(func() { h.closeErr = h.close() })
	return h.closeErr
}

func (h *Herdr) close() error {
	h.srv.close()
	if calls, err := h.cliCalls(); err == nil {
		for _, c := range calls {
			if c.GrandchildPID > 0 {
				if p, err := os.FindProcess(c.GrandchildPID); err == nil {
					_ = p.Kill()
					_ = p.Release()
				}
			}
		}
	}
	if h.socketDir != "" {
		os.RemoveAll(h.socketDir)
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
// HERDR_WORKSPACE_ID and HERDR_TAB_ID, as KEY=value entries (CONTRACT §1.6).
// See [Herdr.PaneEnv] for a complete environment.
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

// Agent returns what `herdr agent get <pane>` would show, read from the
// server directly (no subprocess, no connection, no log entry). It fails
// only when the server is stopped.
func (h *Herdr) Agent(pane string) (AgentInfo, error) {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	return h.agentLocked(pane)
}

func (h *Herdr) agentLocked(pane string) (AgentInfo, error) {
	st := h.srv.st
	if st == nil {
		return AgentInfo{}, ErrServerNotRunning
	}
	if p := st.pane(pane); p != nil {
		return p.agentInfo(), nil
	}
	return AgentInfo{}, nil
}

// WaitTimeout bounds [Herdr.Wait] and [Herdr.WaitCalls] when their ctx has
// no deadline (t.Context() has none), so that a wait for a state that never
// comes fails the test within a minute instead of hanging until go test's
// own timeout (10 minutes by default). It is a bound for a broken host,
// not a speed target.
const WaitTimeout = time.Minute

// waitTimeout is WaitTimeout; the test of the default shortens it.
var waitTimeout = WaitTimeout

// withWaitTimeout returns ctx bounded by waitTimeout when it has no
// deadline.
func withWaitTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, waitTimeout)
}

// Wait blocks until cond holds for what pane shows, and returns that
// [AgentInfo]. cond is called with the current view first, then after
// every change the server makes (a report, a release, a focus, a restart);
// it must not call methods of h. While the server is stopped cond is not
// called. Wait fails with [ErrPaneNotFound] for a pane that does not exist,
// with [ErrServerNotRunning] once h is closed, and with ctx's error, and
// the last view seen, when ctx ends first; a ctx without a deadline ends
// after [WaitTimeout].
func (h *Herdr) Wait(ctx context.Context, pane string, cond func(AgentInfo) bool) (AgentInfo, error) {
	if !slices.Contains(h.panes, pane) {
		return AgentInfo{}, fmt.Errorf("herdrtest: wait for %q: %w", pane, ErrPaneNotFound)
	}
	ctx, cancel := withWaitTimeout(ctx)
	defer cancel()
	var last AgentInfo
	for {
		h.srv.mu.Lock()
		changed, closed := h.srv.changed, h.srv.closed
		info, err := h.agentLocked(pane)
		h.srv.mu.Unlock()
		if closed {
			return last, fmt.Errorf("herdrtest: wait for %q: closed: %w", pane, ErrServerNotRunning)
		}
		if err == nil {
			last = info
			if cond(info) {
				return info, nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return last, fmt.Errorf("herdrtest: wait for %q: %w", pane, ctx.Err())
		}
	}
}

// HighWater returns the sequence high-water mark of source on pane, and
// whether there is one.
func (h *Herdr) HighWater(pane, source string) (uint64, bool) {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	if h.srv.st == nil {
		return 0, false
	}
	if p := h.srv.st.pane(pane); p != nil {
		hwm, ok := p.HWM[source]
		return hwm, ok
	}
	return 0, false
}

// ResumeArgv returns the resume argv the server last accepted for pane
// (Herdr 0.9.2 and later), and whether there is one. Herdr keeps it to
// reopen the session after a server restart, so it survives
// [Herdr.StopServer] and [Herdr.StartServer] (inferred: the emulator never
// runs it).
func (h *Herdr) ResumeArgv(pane string) ([]string, bool) {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	argv, ok := h.srv.resume[pane]
	return slices.Clone(argv), ok
}

// Fault tells the emulator to misbehave. It applies to every later request
// until replaced. Each field says what a CLI call (the fake binary) and
// what a socket request does under it; the fake binary applies them in the
// order Hang, SleepMs, Grandchild, SpewBytes, Garbage, ExitUsage, then runs
// the command, which meets the server's faults. The zero value is no
// fault.
type Fault struct {
	// Hang: the fake binary sleeps until killed; it is logged (Hung,
	// Unfinished, Exit -1) when the hang starts and holds no lock. A socket
	// request is read and never answered: the connection stays open until
	// the client closes it, and the request is logged as hung.
	Hang bool `json:"hang,omitempty"`
	// HangIgnoreTERM makes a hanging fake binary ignore SIGTERM (Unix).
	HangIgnoreTERM bool `json:"hang_ignore_term,omitempty"`
	// Grandchild starts a grandchild of the fake binary that inherits
	// stdout and stderr and sleeps one minute, then carries on normally: a
	// caller reading the pipes sees them stay open after the fake exits
	// (exec.Cmd.WaitDelay). Close kills such grandchildren. CLI only.
	Grandchild bool `json:"grandchild,omitempty"`
	// ServerNotRunning stops the server listening, keeping its state:
	// both transports find nothing at the socket, and the fake binary
	// answers server_not_running. Clearing it listens again.
	ServerNotRunning bool `json:"server_not_running,omitempty"`
	// SocketUnreachable: the server closes every connection of a client
	// other than the fake CLI without reading it, so that client gets no
	// answer (a socket-level failure), while the fake CLI is served as
	// usual: a server that a host reaches differently than its CLI does,
	// as a Windows pipe client may. Socket only.
	SocketUnreachable bool `json:"socket_unreachable,omitempty"`
	// ProtocolMismatch is the protocol the server's ping claims, e.g. 19:
	// the fake binary then refuses every server command with
	// protocol_mismatch, and status reports it. A socket client sees it in
	// the pong; the server still handles its requests, as Herdr's does. 0
	// means none.
	ProtocolMismatch int `json:"protocol_mismatch,omitempty"`
	// ExitUsage: the fake binary exits 2 with a usage line on stderr. CLI
	// only.
	ExitUsage bool `json:"exit_usage,omitempty"`
	// SleepMs: the fake binary sleeps this long before it runs the
	// command; the server waits this long before it handles a socket
	// request. Neither holds up other requests.
	SleepMs int `json:"sleep_ms,omitempty"`
	// SpewBytes: the fake binary writes this many bytes to stdout and to
	// stderr first. A socket client gets this many bytes with no newline
	// before the response (more than the 64 KiB a client reads).
	SpewBytes int `json:"spew_bytes,omitempty"`
	// FailFirst makes the next N report, release and report-session
	// requests, of either transport, fail with server_unavailable, changing
	// nothing. SetFault restarts the count.
	FailFirst int `json:"fail_first,omitempty"`
	// FailAll: every request, ping included, from either transport, is
	// answered with server_unavailable and changes nothing. The fake
	// binary's protocol check then fails with that error (exit 1), and
	// its status reports no running server.
	FailAll bool `json:"fail_all,omitempty"`
	// Garbage: the fake binary prints non-JSON, non-UTF-8 bytes to stderr
	// and exits 1. A socket client gets such a line instead of a response;
	// the request is not handled.
	Garbage bool `json:"garbage,omitempty"`
}

// control is the control file the fake binary reads on start.
type control struct {
	Version string `json:"version"`
	Fault   Fault  `json:"fault"`
}

func (h *Herdr) writeControl(f Fault) error {
	data, err := json.Marshal(control{Version: h.v.name, Fault: f})
	if err != nil {
		return fmt.Errorf("herdrtest: %w", err)
	}
	return writeFileAtomic(h.control, data)
}

// SetFault replaces the fault applied to later requests and restarts the
// FailFirst count.
func (h *Herdr) SetFault(f Fault) error {
	if err := h.writeControl(f); err != nil {
		return err
	}
	h.srv.mu.Lock()
	h.srv.fault, h.srv.failUsed = f, 0
	h.srv.notifyLocked()
	h.srv.mu.Unlock()
	return h.srv.setListening(!f.ServerNotRunning)
}

// Hold is a hold on the emulated server, from [Herdr.Hold]: while it is in
// force the server reads every pane.report_agent, pane.release_agent and
// pane.report_agent_session request, from either transport (the fake CLI is
// the server's client), and holds it before applying it, as a slow server
// does; [Hold.Resume] applies them one at a time in the order they arrived,
// each answered as usual. A client that gives up (a killed CLI, a closed
// connection) does not take its request back: it is applied all the same,
// and its answer is lost. Other methods (ping, pane.get, ...) are not held.
// A server stopped while requests are held drops them unapplied.
type Hold struct {
	srv   *server
	held  int  // requests held since the hold began; guarded by srv.mu
	ended bool // Resume was called; guarded by srv.mu
}

// Hold starts holding agent requests (see [Hold]) and returns the handle
// that ends it. Requests already held by an earlier hold stay ahead of the
// new ones. Only one hold is in force at a time: a second Hold ends the
// first one's count and keeps holding.
func (h *Herdr) Hold() *Hold {
	s := h.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	hd := &Hold{srv: s}
	if s.hold != nil {
		s.hold.ended = true
	}
	s.hold = hd
	s.notifyLocked()
	return hd
}

// Held blocks until the hold has held at least n requests, or ctx ends
// (then it returns ctx's error), or the emulator is closed
// ([ErrServerNotRunning]).
func (hd *Hold) Held(ctx context.Context, n int) error {
	s := hd.srv
	for {
		s.mu.Lock()
		held, changed, closed := hd.held, s.changed, s.closed
		s.mu.Unlock()
		switch {
		case held >= n:
			return nil
		case closed:
			return fmt.Errorf("herdrtest: held: %w", ErrServerNotRunning)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("herdrtest: %d of %d requests held: %w", held, n, ctx.Err())
		}
	}
}

// Resume ends the hold: the held requests, then any that arrive behind
// them, are applied in arrival order. It is idempotent.
func (hd *Hold) Resume() {
	s := hd.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if hd.ended {
		return
	}
	hd.ended = true
	if s.hold == hd {
		s.hold = nil
	}
	s.openHeadLocked()
	s.notifyLocked()
}

// StopServer stops the server: the socket is gone, open connections are
// closed, and with them every authority and high-water mark.
func (h *Herdr) StopServer() error {
	h.srv.stop()
	return nil
}

// StartServer starts a fresh server with the same panes and view, as a
// restart would: no authority, no high-water mark (CONTRACT §3.3, checklist
// item 57). Starting a running server restarts it.
func (h *Herdr) StartServer() error {
	return h.srv.start()
}

// Focus does what `herdr agent focus <pane>` does to the status: it marks the
// pane seen, so "done" shows as "idle". Unlike a real focus it does not move
// the view; see [Herdr.SetInView].
func (h *Herdr) Focus(pane string) error {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	if h.srv.st == nil {
		return ErrServerNotRunning
	}
	p := h.srv.st.pane(pane)
	if p == nil {
		return fmt.Errorf("herdrtest: focus %q: %w", pane, ErrPaneNotFound)
	}
	p.Seen = true
	h.srv.notifyLocked()
	return nil
}

// SetInView puts pane in or out of the active tab of the active workspace
// with a focused client. Bringing a pane into view marks it seen, as
// switching to its tab does. The setting survives StopServer/StartServer.
func (h *Herdr) SetInView(pane string, inView bool) error {
	if !slices.Contains(h.panes, pane) {
		return fmt.Errorf("herdrtest: set in view %q: %w", pane, ErrPaneNotFound)
	}
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	h.srv.inView[pane] = inView
	if st := h.srv.st; st != nil {
		p := st.pane(pane)
		p.InView = inView
		if inView {
			p.Seen = true
		}
	}
	h.srv.notifyLocked()
	return nil
}

// AgentInfo is the emulated AgentInfo that `herdr agent get` prints
// (CONTRACT §4), fields in Herdr's serialization order. Fields the emulator
// has no value for (name, title, cwd, agent_session, ...) are never present.
type AgentInfo struct {
	TerminalID     string `json:"terminal_id"`
	Agent          string `json:"agent,omitempty"`
	AgentStatus    Status `json:"agent_status"`
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

// PaneEnv returns a complete, private environment for a host running in
// the own pane: this process's environment without any HERDR_* or TMUX*
// variable, then HOME (and on Windows USERPROFILE, APPDATA and
// LOCALAPPDATA) set to home and XDG_CONFIG_HOME, XDG_STATE_HOME,
// XDG_CACHE_HOME and XDG_DATA_HOME to directories under it, then the
// variables of [Herdr.Env]. A host's settings, state and caches are then
// read and written under home, never a developer's real ~/.<app> files.
// Pass it as registry.Options.Env for a host in this process, or as
// exec.Cmd.Env for a host program; home is typically t.TempDir(). The XDG
// directories are not created.
func (h *Herdr) PaneEnv(home string) []string {
	env := make([]string, 0, len(os.Environ())+16)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch up := strings.ToUpper(k); {
		case strings.HasPrefix(up, "HERDR_"), strings.HasPrefix(up, "TMUX"),
			up == "HOME", up == "USERPROFILE", up == "APPDATA", up == "LOCALAPPDATA",
			strings.HasPrefix(up, "XDG_CONFIG_HOME"), strings.HasPrefix(up, "XDG_STATE_HOME"),
			strings.HasPrefix(up, "XDG_CACHE_HOME"), strings.HasPrefix(up, "XDG_DATA_HOME"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
	)
	if runtime.GOOS == "windows" {
		env = append(env,
			"USERPROFILE="+home,
			"APPDATA="+filepath.Join(home, "AppData", "Roaming"),
			"LOCALAPPDATA="+filepath.Join(home, "AppData", "Local"),
		)
	}
	return append(env, h.Env()...)
}
