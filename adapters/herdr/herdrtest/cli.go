package herdrtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
	"github.com/panestate/panestate/internal/filelock"
)

const (
	grandchildToken = "__herdrtest_grandchild__"
	grandchildSleep = time.Minute

	binName     = "herdr"
	controlName = "herdrtest-control.json"
	logName     = "herdrtest-calls.jsonl"
	lockName    = "herdrtest.lock"
	socketName  = "herdr.sock"
)

// Main runs the emulated herdr CLI when the current executable was started
// under the name "herdr" (or "herdr.exe"), and then exits the process. In any
// other case it returns at once and does nothing.
//
// Call it first thing in TestMain of every test package that uses [Start],
// and first thing in main of programs that do: [Herdr.Bin] re-executes the
// current executable under that name, busybox-style.
func Main() {
	if len(os.Args) == 0 || !isHerdrName(os.Args[0]) {
		return
	}
	if len(os.Args) == 3 && os.Args[1] == grandchildToken {
		// The Grandchild fault's child: hold the inherited stdout open.
		time.Sleep(grandchildSleep)
		exit(0)
	}
	exit(run(os.Args[1:]))
}

// isHerdrName reports whether argv[0] names the emulated binary. It allocates
// nothing, so Main costs a real program almost nothing.
func isHerdrName(arg0 string) bool {
	base := filepath.Base(arg0)
	if len(base) == len(binName)+4 && strings.EqualFold(base[len(binName):], ".exe") {
		base = base[:len(binName)]
	}
	return base == binName
}

// counter counts bytes written through it.
type counter struct {
	w io.Writer
	n int
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// invocation is one run of the emulated CLI.
type invocation struct {
	args     []string
	dir      string // the Herdr dir holding control, log and lock; "" if unknown
	start    time.Time
	stdout   *counter
	stderr   *counter
	unlock   func() error
	fault    Fault
	v        version
	grandPID int
}

func run(args []string) int {
	inv := &invocation{
		args:   args,
		start:  time.Now(),
		stdout: &counter{w: os.Stdout},
		stderr: &counter{w: os.Stderr},
		dir:    findDir(),
	}
	inv.v, _ = lookupVersion("")
	if inv.dir != "" {
		if data, err := os.ReadFile(filepath.Join(inv.dir, controlName)); err == nil {
			var ctl control
			if json.Unmarshal(data, &ctl) == nil { // a torn or empty control file means no fault
				inv.fault = ctl.Fault
				if v, err := lookupVersion(ctl.Version); err == nil {
					inv.v = v
				}
			}
		}
	}
	inv.logStart()
	code := inv.execute()
	inv.finish(code, false)
	return code
}

// findDir locates the directory that Start populated: the one holding the
// binary that was executed (argv[0] first, as a symlink resolves elsewhere).
func findDir() string {
	var candidates []string
	if strings.ContainsAny(os.Args[0], `/\`) {
		candidates = append(candidates, filepath.Dir(os.Args[0]))
	}
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Dir(exe))
	}
	for _, dir := range candidates {
		if _, err := os.Stat(filepath.Join(dir, controlName)); err == nil {
			return dir
		}
	}
	return ""
}

// lock takes the cross-process lock of the log once.
func (inv *invocation) lock() {
	if inv.unlock != nil || inv.dir == "" {
		return
	}
	if unlock, err := filelock.Lock(filepath.Join(inv.dir, lockName)); err == nil {
		inv.unlock = unlock
	}
}

// Phases of a log record. Every invocation logs phaseStart on entry, then
// either phaseEnd when it finishes or phaseHang when it starts to hang
// (Fault.Hang). A process killed before it finishes leaves only its start
// record; [Herdr.Calls] reports it as Unfinished.
const (
	phaseStart = "start"
	phaseHang  = "hang"
	phaseEnd   = "end"
)

// logRecord is one line of the invocation log.
type logRecord struct {
	Phase string `json:"phase"`
	Call
}

// logStart appends the invocation's start record: argv, environment, start
// time and pid, so that a call killed before it finishes is still logged.
func (inv *invocation) logStart() {
	inv.appendLog(logRecord{Phase: phaseStart, Call: Call{
		Transport: TransportCLI, Args: inv.args, Env: herdrEnv(), Start: inv.start, Exit: -1, PID: os.Getpid(),
	}})
	inv.release()
}

// finish appends the invocation's completing record (phaseEnd, or phaseHang
// for a call that starts to hang) and releases the lock.
func (inv *invocation) finish(code int, hung bool) {
	rec := logRecord{Phase: phaseEnd, Call: Call{
		Transport:     TransportCLI,
		Args:          inv.args,
		Env:           herdrEnv(),
		Start:         inv.start,
		Exit:          code,
		Stdout:        inv.stdout.n,
		Stderr:        inv.stderr.n,
		PID:           os.Getpid(),
		Hung:          hung,
		GrandchildPID: inv.grandPID,
	}}
	if hung {
		rec.Phase = phaseHang
	} else {
		rec.End = time.Now()
	}
	inv.appendLog(rec)
	inv.release()
}

// appendLog appends rec to the log under the cross-process lock (taking it
// if this invocation does not hold it yet). Without a Herdr dir there is no
// log.
func (inv *invocation) appendLog(rec logRecord) {
	if inv.dir == "" {
		return
	}
	inv.lock()
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	if f, err := os.OpenFile(filepath.Join(inv.dir, logName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
		_, _ = f.Write(append(data, '\n'))
		_ = f.Close()
	}
}

// release gives up the cross-process lock, if held.
func (inv *invocation) release() {
	if inv.unlock != nil {
		_ = inv.unlock()
		inv.unlock = nil
	}
}

func herdrEnv() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "HERDR_") {
			env[k] = v
		}
	}
	return env
}

// execute applies the faults, then runs the CLI proper.
func (inv *invocation) execute() int {
	f := inv.fault
	if f.Hang {
		if f.HangIgnoreTERM {
			signal.Ignore(syscall.SIGTERM)
		}
		inv.finish(-1, true)
		for {
			time.Sleep(time.Hour)
		}
	}
	if f.SleepMs > 0 {
		time.Sleep(time.Duration(f.SleepMs) * time.Millisecond)
	}
	if f.Grandchild {
		inv.startGrandchild()
	}
	if f.SpewBytes > 0 {
		spew(inv.stdout, f.SpewBytes)
		spew(inv.stderr, f.SpewBytes)
	}
	if f.Garbage {
		fmt.Fprint(inv.stderr, "herdr: \xff\xfe{{ not json ]] \x1b[31mpanic\x1b[0m\n")
		return 1
	}
	if f.ExitUsage {
		fmt.Fprintln(inv.stderr, usageReportAgent)
		return 2
	}
	return inv.cli()
}

func (inv *invocation) startGrandchild() {
	exe := os.Args[0]
	if !strings.ContainsAny(exe, `/\`) {
		if resolved, err := os.Executable(); err == nil {
			exe = resolved
		}
	}
	cmd := &exec.Cmd{
		Path:   exe,
		Args:   []string{binName, grandchildToken, "sleep"},
		Stdout: os.Stdout,
		Stderr: os.Stderr,
	}
	if cmd.Start() == nil {
		inv.grandPID = cmd.Process.Pid
		_ = cmd.Process.Release()
	}
}

func spew(w io.Writer, n int) {
	chunk := bytes.Repeat([]byte("spew "), 6554)[:32<<10]
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			return
		}
		n -= k
	}
}

// exitError prints Herdr's global-argument error and returns exit code 2.
func (inv *invocation) exitError(format string, a ...any) int {
	fmt.Fprintf(inv.stderr, "error: "+format+"\n", a...)
	fmt.Fprintln(inv.stderr, "run 'herdr --help' for usage")
	return 2
}

// globals is what main's preprocessing extracted from argv.
type globals struct {
	session    string
	hasSession bool
}

// cli runs main's processing order (CONTRACT §1.1) and dispatches.
func (inv *invocation) cli() int {
	args := inv.args
	for i, a := range args {
		if !utf8.ValidString(a) {
			return inv.exitError("argument %d is not valid UTF-8", i+1)
		}
	}
	var g globals
	args, code := inv.extractSession(args, &g)
	if code >= 0 {
		return code
	}
	args, code = inv.extractRemote(args)
	if code >= 0 {
		return code
	}
	if help, ok := helpFor(args); ok {
		fmt.Fprint(inv.stdout, help)
		return 0
	}
	if len(args) == 0 {
		return inv.exitError("the interactive client is not emulated by herdrtest")
	}
	switch args[0] {
	case "--version", "-V":
		fmt.Fprintln(inv.stdout, "herdr "+inv.v.name)
		return 0
	case "pane":
		return inv.pane(g, args[1:])
	case "agent":
		return inv.agent(g, args[1:])
	case "status":
		return inv.status(g, args[1:])
	case "api":
		if len(args) == 3 && args[1] == "schema" && args[2] == "--json" {
			fmt.Fprintf(inv.stdout, "{\n  \"title\": \"herdr socket API (herdrtest excerpt)\",\n  \"protocol\": %d\n}\n", inv.v.protocol)
			return 0
		}
	}
	return inv.exitError("unrecognized command '%s'", strings.Join(args, " "))
}

// extractSession removes every --session X / --session=X before a literal
// "--". code is -1 to continue.
func (inv *invocation) extractSession(args []string, g *globals) (rest []string, code int) {
	rest = make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		var name string
		switch {
		case a == "--":
			return append(rest, args[i:]...), -1
		case a == "--session":
			if i+1 >= len(args) {
				return nil, inv.exitError("missing value for --session")
			}
			i++
			name = args[i]
		case strings.HasPrefix(a, "--session="):
			name = strings.TrimPrefix(a, "--session=")
		default:
			rest = append(rest, a)
			continue
		}
		if !validSessionName(name) {
			return nil, inv.exitError("invalid session name %q: use 1-64 characters from A-Z a-z 0-9 . _ -", name)
		}
		g.session, g.hasSession = name, true
	}
	if os.Getenv("HERDR_SOCKET_PATH") == "" {
		if name := os.Getenv("HERDR_SESSION"); name != "" && !validSessionName(name) {
			return nil, inv.exitError("invalid HERDR_SESSION %q: use 1-64 characters from A-Z a-z 0-9 . _ -", name)
		}
	}
	return rest, -1
}

// validSessionName reports whether name is 1-64 of A-Z a-z 0-9 . _ -, and
// not "." or "..".
func validSessionName(name string) bool {
	return len(name) > 0 && len(name) <= 64 && name != "." && name != ".." && nameChars(name)
}

// extractRemote removes --remote and --remote-keybindings (with their
// values) and moves --handoff to the end, all before a literal "--".
func (inv *invocation) extractRemote(args []string) (rest []string, code int) {
	rest = make([]string, 0, len(args))
	remote, keybindings, handoff := false, false, false
	i := 0
scan:
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			break scan
		case a == "--remote", a == "--remote-keybindings":
			if i+1 >= len(args) {
				return nil, inv.exitError("missing value for %s", a)
			}
			i++
			remote = remote || a == "--remote"
			keybindings = keybindings || a == "--remote-keybindings"
		case strings.HasPrefix(a, "--remote="):
			remote = true
		case strings.HasPrefix(a, "--remote-keybindings="):
			keybindings = true
		case a == "--handoff":
			handoff = true
		default:
			rest = append(rest, a)
		}
	}
	rest = append(rest, args[i:]...)
	if handoff {
		rest = append(rest, "--handoff")
	}
	switch {
	case keybindings && !remote:
		return nil, inv.exitError("--remote-keybindings requires --remote")
	case remote && len(rest) > 0 && rest[0] != "--handoff":
		return nil, inv.exitError("--remote cannot be combined with a subcommand")
	case remote:
		return nil, inv.exitError("remote attach is not emulated by herdrtest")
	}
	return rest, -1
}

// resolveSocket follows Herdr's order: --session, HERDR_SOCKET_PATH,
// HERDR_SESSION, then the default socket. attach is the command that the
// server_not_running message suggests.
func resolveSocket(g globals) (socket, attach string) {
	sessionSocket := func(name string) (string, string) {
		if name == "default" {
			return filepath.Join(configDir(), socketName), "herdr"
		}
		return filepath.Join(configDir(), "sessions", name, socketName), "herdr session attach " + name
	}
	if g.hasSession {
		return sessionSocket(g.session)
	}
	if s := os.Getenv("HERDR_SOCKET_PATH"); s != "" {
		return s, "herdr"
	}
	if name := os.Getenv("HERDR_SESSION"); name != "" && name != "default" {
		return sessionSocket(name)
	}
	return filepath.Join(configDir(), socketName), "herdr"
}

func configDir() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "herdr")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config", "herdr")
}

// writeJSONLine prints a response as one compact JSON line, without HTML
// escaping (as serde_json does).
func writeJSONLine(w io.Writer, r wire.Response) { _, _ = w.Write(r.Line()) }

// writeJSON prints v as one compact JSON line, without HTML escaping.
func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// rustDebugError prints what returning an io::Error from Rust's main prints,
// and returns exit code 1.
func (inv *invocation) rustDebugError(msg string) int {
	fmt.Fprintf(inv.stderr, "Error: Custom { kind: Other, error: %s }\n", rustDebugString(msg))
	return 1
}

// rustDebugString quotes s the way Rust's Debug for str does.
func rustDebugString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		default:
			if isControl(r) {
				fmt.Fprintf(&b, `\u{%x}`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// call sends one request to the server at the resolved socket as Herdr's
// CLI does (CONTRACT §1.5): a ping on a connection of its own, the exact
// protocol check, then the request on a second connection, with no
// timeouts. It returns the response; when the CLI fails before one, ok is
// false and code is the exit code, the error already printed.
func (inv *invocation) call(g globals, id string, method wire.Method, params any) (resp wire.Response, code int, ok bool) {
	socket, attach := resolveSocket(g)
	ctx := context.Background()
	pong, err := wire.Ping(ctx, socket)
	if err != nil {
		return wire.Response{}, inv.clientError(id, socket, attach, err), false
	}
	if pong.Protocol != inv.v.protocol {
		writeJSONLine(inv.stderr, wire.NewError(id, wire.CodeProtocolMismatch, inv.mismatchMessage(pong.Protocol)))
		return wire.Response{}, 1, false
	}
	req, err := wire.NewRequest(id, method, params)
	if err != nil {
		return wire.Response{}, inv.rustDebugError(err.Error()), false
	}
	resp, err = wire.Do(ctx, socket, req)
	if err != nil {
		return wire.Response{}, inv.clientError(id, socket, attach, err), false
	}
	return resp, 0, true
}

// mismatchMessage is the protocol_mismatch message of src/cli/protocol_guard.rs
// (CONTRACT §1.5). The guidance after the first sentence is the
// emulator's wording.
func (inv *invocation) mismatchMessage(server int) string {
	if server > inv.v.protocol {
		return fmt.Sprintf("client protocol %d is older than server protocol %d; upgrade the Herdr client before using this command", inv.v.protocol, server)
	}
	return fmt.Sprintf("client protocol %d is newer than server protocol %d; restart the Herdr server before using this command. "+
		"Stop the running server (or let a live update hand it off) and start herdr again.", inv.v.protocol, server)
}

// clientError prints what the CLI prints for a failed exchange and
// returns its exit code, 1: server_not_running as JSON when nothing
// listens (CONTRACT §1.5), an error response as the server sent it, and
// otherwise an "Error: ..." line (Herdr prints the Rust Debug of the
// io::Error; the text here is the emulator's).
func (inv *invocation) clientError(id, socket, attach string, err error) int {
	var we *wire.Error
	switch {
	case errors.Is(err, wire.ErrNotRunning):
		writeJSONLine(inv.stderr, wire.NewError(id, wire.CodeServerNotRunning,
			"no herdr server is running at "+socket+"; run `"+attach+"` to start or attach it"))
	case errors.As(err, &we):
		writeJSONLine(inv.stderr, wire.Response{ID: id, Error: we})
	case errors.Is(err, wire.ErrEmptyResponse):
		fmt.Fprintln(inv.stderr, "Error: EmptyResponse")
	default:
		return inv.rustDebugError(err.Error())
	}
	return 1
}

// print writes a response as the CLI does: a success to stdout when the
// command shows it, an error to stderr with exit 1.
func (inv *invocation) print(resp wire.Response, show bool) int {
	if resp.Error != nil {
		_, _ = inv.stderr.Write(resp.Line())
		return 1
	}
	if show {
		_, _ = inv.stdout.Write(resp.Line())
	}
	return 0
}

// Usage lines of the three pane-agent subcommands (CONTRACT §1.2-1.4).
const (
	usageReportAgent = "usage: herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown " +
		"[--message TEXT] [--seq N] [--agent-session-id ID] [--agent-session-path PATH]"
	usageReleaseAgent       = "usage: herdr pane release-agent <pane_id> --source ID --agent LABEL [--seq N]"
	usageReportAgentSession = "usage: herdr pane report-agent-session <pane_id> --source ID --agent LABEL [--seq N] " +
		"[--agent-session-id ID] [--agent-session-path PATH] [--session-start-source SOURCE]"
)

var agentCommandFlags = map[string][]string{
	"report-agent":         {"--source", "--agent", "--state", "--message", "--seq", "--agent-session-id", "--agent-session-path"},
	"release-agent":        {"--source", "--agent", "--seq"},
	"report-agent-session": {"--source", "--agent", "--seq", "--agent-session-id", "--agent-session-path", "--session-start-source"},
}

var agentCommandUsage = map[string]string{
	"report-agent":         usageReportAgent,
	"release-agent":        usageReleaseAgent,
	"report-agent-session": usageReportAgentSession,
}

func (inv *invocation) pane(g globals, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(inv.stderr, "usage: herdr pane <command> [args]")
		return 2
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "report-agent", "release-agent", "report-agent-session":
		method, params, code := inv.parseAgentCommand(sub, rest)
		if params == nil {
			return code
		}
		resp, code, ok := inv.call(g, wire.IDCLIRequest, method, params)
		if !ok {
			return code
		}
		return inv.print(resp, false)
	case "get":
		if len(rest) != 1 {
			fmt.Fprintln(inv.stderr, "usage: herdr pane get <pane_id>")
			return 2
		}
		return inv.show(g, "cli:pane:get", wire.MethodPaneGet, wire.PaneTarget{PaneID: rest[0]})
	case "current":
		pane := os.Getenv("HERDR_PANE_ID")
		if len(rest) != 0 || pane == "" {
			fmt.Fprintln(inv.stderr, "usage: herdr pane current")
			return 2
		}
		return inv.show(g, "cli:pane:current", wire.MethodPaneCurrent, wire.PaneCurrentParams{CallerPaneID: &pane})
	case "list":
		if len(rest) != 0 {
			fmt.Fprintf(inv.stderr, "unknown option: %s\n", rest[0])
			return 2
		}
		return inv.show(g, "cli:pane:list", wire.MethodPaneList, wire.PaneListParams{})
	}
	fmt.Fprintf(inv.stderr, "unknown pane command: %s\n", sub)
	return 2
}

// show sends a read request and prints the whole response (CONTRACT §4).
func (inv *invocation) show(g globals, id string, method wire.Method, params any) int {
	resp, code, ok := inv.call(g, id, method, params)
	if !ok {
		return code
	}
	return inv.print(resp, true)
}

// parseAgentCommand is the hand-written flag loop shared by report-agent,
// release-agent and report-agent-session (CONTRACT §1.2-1.4). A nil params
// means the CLI exits with code.
//
// From 0.9.0 report-agent and report-agent-session also accept options
// before the pane id and --opt=value, and from 0.9.2 a literal "--"
// followed by the resume argv (HERDR-0.9.md "CLI grammar", "Resume argv").
// Inferred for those forms: the pane id is the first argument that is
// neither an option nor an option's value (or the first argument, as in
// 0.8.2, when it is not an option); a second one, or an unknown option, is
// "unknown option"; no pane id at all gives the usage line; "--" with
// nothing after it sends no resume argv. release-agent keeps the 0.8.2
// grammar, since HERDR-0.9.md names only the other two.
func (inv *invocation) parseAgentCommand(sub string, args []string) (wire.Method, any, int) {
	if len(args) == 0 {
		fmt.Fprintln(inv.stderr, agentCommandUsage[sub])
		return "", nil, 2
	}
	flexible := inv.v.flexibleCLI && sub != "release-agent"
	allowed := agentCommandFlags[sub]
	known := func(tok string) bool {
		return slices.Contains(allowed, tok)
	}
	var pane, source, agent *string
	var state wire.AgentState
	var message, sessionID, sessionPath, startSource *string
	var seq *uint64
	var resume []string
	for i := 0; i < len(args); i++ {
		tok := args[i]
		var v string
		switch {
		case !flexible && i == 0:
			pane = &args[0] // 0.8.2: the first argument is the pane id, whatever it is
			continue
		case flexible && tok == "--" && inv.v.resume:
			resume = args[i+1:]
			i = len(args)
			continue
		case flexible && strings.HasPrefix(tok, "--") && strings.Contains(tok, "=") && known(tok[:strings.IndexByte(tok, '=')]):
			tok, v = tok[:strings.IndexByte(tok, '=')], tok[strings.IndexByte(tok, '=')+1:]
		case known(tok):
			if i+1 >= len(args) {
				fmt.Fprintf(inv.stderr, "missing value for %s\n", tok)
				return "", nil, 2
			}
			i++
			v = args[i]
		case flexible && pane == nil && (i == 0 || !strings.HasPrefix(tok, "-")):
			pane = &args[i]
			continue
		default:
			fmt.Fprintf(inv.stderr, "unknown option: %s\n", tok)
			return "", nil, 2
		}
		switch tok {
		case "--source":
			source = &v
		case "--agent":
			agent = &v
		case "--state":
			if !wire.AgentState(v).Valid() {
				return "", nil, inv.rustDebugError("invalid pane agent state: " + v + " (expected idle, working, blocked, or unknown)")
			}
			state = wire.AgentState(v)
		case "--message":
			message = &v
		case "--seq":
			n, ok := parseRustU64(v)
			if !ok {
				return "", nil, inv.rustDebugError("invalid value for --seq: " + v)
			}
			seq = &n
		case "--agent-session-id":
			sessionID = &v
		case "--agent-session-path":
			sessionPath = &v
		case "--session-start-source":
			startSource = &v
		}
	}
	if pane == nil {
		fmt.Fprintln(inv.stderr, agentCommandUsage[sub])
		return "", nil, 2
	}
	if source == nil || strings.TrimSpace(*source) == "" {
		fmt.Fprintln(inv.stderr, "missing required --source")
		return "", nil, 2
	}
	if agent == nil {
		fmt.Fprintln(inv.stderr, "missing required --agent")
		return "", nil, 2
	}
	if sub == "report-agent" && state == "" {
		fmt.Fprintln(inv.stderr, "missing required --state")
		return "", nil, 2
	}
	src := strings.TrimSpace(*source)
	switch sub {
	case "report-agent":
		return wire.MethodReportAgent, wire.ReportAgentParams{
			PaneID: *pane, Source: src, Agent: *agent, State: state, Message: message, Seq: seq,
			AgentSessionID: sessionID, AgentSessionPath: sessionPath, ResumeArgv: resume,
		}, 0
	case "release-agent":
		return wire.MethodReleaseAgent, wire.ReleaseAgentParams{PaneID: *pane, Source: src, Agent: *agent, Seq: seq}, 0
	}
	return wire.MethodReportAgentSession, wire.ReportAgentSessionParams{
		PaneID: *pane, Source: src, Agent: *agent, Seq: seq, AgentSessionID: sessionID,
		AgentSessionPath: sessionPath, SessionStartSource: startSource, ResumeArgv: resume,
	}, 0
}

// parseRustU64 accepts what Rust's u64::from_str accepts: ASCII digits with
// an optional leading '+', no overflow.
func parseRustU64(s string) (uint64, bool) {
	digits := strings.TrimPrefix(s, "+")
	if digits == "" || digits[0] == '+' || digits[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

func (inv *invocation) agent(g globals, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(inv.stderr, "usage: herdr agent <command> [args]")
		return 2
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "get", "focus":
		if len(rest) != 1 {
			fmt.Fprintf(inv.stderr, "usage: herdr agent %s <target>\n", sub)
			return 2
		}
		method := wire.MethodAgentGet
		if sub == "focus" {
			method = wire.MethodAgentFocus
		}
		resp, code, ok := inv.call(g, "cli:agent:"+sub, method, wire.AgentTarget{Target: rest[0]})
		if !ok {
			return code
		}
		return inv.print(resp, sub == "get")
	case "list":
		if len(rest) != 0 {
			fmt.Fprintf(inv.stderr, "unknown option: %s\n", rest[0])
			return 2
		}
		return inv.show(g, "cli:agent:list", wire.MethodAgentList, nil)
	}
	fmt.Fprintf(inv.stderr, "unknown agent command: %s\n", sub)
	return 2
}

type statusClient struct {
	Version  string  `json:"version"`
	Channel  string  `json:"channel"`
	Protocol int     `json:"protocol"`
	Binary   string  `json:"binary"`
	Session  *string `json:"session"`
}

type statusCapabilities wire.Capabilities

type statusServer struct {
	Status        string              `json:"status"`
	Running       bool                `json:"running"`
	Version       *string             `json:"version"`
	Protocol      *int                `json:"protocol"`
	Capabilities  *statusCapabilities `json:"capabilities"`
	Compatible    *bool               `json:"compatible"`
	Socket        string              `json:"socket"`
	Session       *string             `json:"session"`
	RestartNeeded bool                `json:"restart_needed"`
}

// status emulates `herdr status [client|server] [--json]`, which always
// exits 0 (CONTRACT §6). The server part comes from a ping.
func (inv *invocation) status(g globals, args []string) int {
	asJSON, part := false, ""
	for _, a := range args {
		switch {
		case a == "--json":
			asJSON = true
		case (a == "client" || a == "server") && part == "":
			part = a
		default:
			fmt.Fprintf(inv.stderr, "unknown option: %s\n", a)
			return 2
		}
	}
	var session *string
	if g.hasSession {
		session = &g.session
	}
	binary, _ := filepath.Abs(os.Args[0])
	client := statusClient{Version: inv.v.name, Channel: "stable", Protocol: inv.v.protocol, Binary: binary, Session: session}
	socket, _ := resolveSocket(g)
	server := statusServer{Status: "not_running", Socket: socket, Session: session}
	if pong, err := wire.Ping(context.Background(), socket); err == nil {
		compatible := pong.Protocol == inv.v.protocol
		caps := statusCapabilities(pong.Capabilities)
		server = statusServer{
			Status: "running", Running: true, Version: &pong.Version, Protocol: &pong.Protocol,
			Capabilities: &caps, Compatible: &compatible,
			Socket: socket, Session: session, RestartNeeded: pong.Protocol < inv.v.protocol,
		}
	}
	if !asJSON {
		fmt.Fprintf(inv.stdout, "client: herdr %s (protocol %d)\nserver: %s at %s\n", inv.v.name, inv.v.protocol, server.Status, socket)
		return 0
	}
	switch part {
	case "client":
		writeJSON(inv.stdout, client)
	case "server":
		writeJSON(inv.stdout, server)
	default:
		writeJSON(inv.stdout, struct {
			Client statusClient `json:"client"`
			Server statusServer `json:"server"`
			Update struct {
				RestartNeeded bool `json:"restart_needed"`
			} `json:"update"`
		}{Client: client, Server: server})
	}
	return 0
}

// helpFor implements Herdr's help interception: --help or -h immediately
// after a full command path (CONTRACT §1.1.4).
func helpFor(args []string) (string, bool) {
	for _, path := range [][]string{
		{"pane", "report-agent"}, {"pane", "release-agent"}, {"pane", "report-agent-session"},
		{"pane", "get"}, {"pane", "list"}, {"pane", "current"},
		{"agent", "get"}, {"agent", "list"}, {"agent", "focus"},
		{"pane"}, {"agent"}, {"status"}, {},
	} {
		if len(args) <= len(path) || (args[len(path)] != "--help" && args[len(path)] != "-h") {
			continue
		}
		match := true
		for i, p := range path {
			match = match && args[i] == p
		}
		if !match {
			continue
		}
		name := strings.TrimSpace("herdr " + strings.Join(path, " "))
		usage := name + " [args]"
		if len(path) == 2 && path[0] == "pane" {
			if u, ok := agentCommandUsage[path[1]]; ok {
				usage = strings.TrimPrefix(u, "usage: ")
			}
		}
		return fmt.Sprintf("%s (emulated by herdrtest)\n\nUsage: %s\n\nOptions:\n  -h, --help  Print help\n", name, usage), true
	}
	return "", false
}
