package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
)

// runMainEnv makes the test binary run the chat host's main instead of the
// tests, so that a test can run the host as a real process.
const runMainEnv = "PANESTATE_EXAMPLE_CHAT_RUN_MAIN"

func TestMain(m *testing.M) {
	// The test binary is also the emulated herdr CLI (herdrtest links it
	// under that name) ...
	herdrtest.Main()
	// ... and, for TestSignalReleasesPane, the chat host itself. Its
	// environment is the one the test gave it, HERDR_* included.
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
	// Never report into the pane of a developer running the tests in Herdr.
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}

// world is one emulated Herdr pane and a private home and project.
type world struct {
	h       *herdrtest.Herdr
	home    string
	project string
	env     []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	h := herdrtest.StartT(t, herdrtest.Options{})
	home := t.TempDir()
	return &world{
		h:       h,
		home:    home,
		project: t.TempDir(),
		env: append(h.Env(),
			"HOME="+home,
			"USERPROFILE="+home,
			"XDG_STATE_HOME="+filepath.Join(home, "state"),
			"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
			"LOCALAPPDATA="+filepath.Join(home, "local"),
		),
	}
}

// writeSettings writes a settings file under the world's home or project.
func (w *world) writeSettings(t *testing.T, rel, content string) {
	t.Helper()
	path := filepath.Join(rel, "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// result is what one run of the chat host gave.
type result struct {
	code           int
	stdout, stderr string
}

// run runs the chat host in-process on the given input, with the world's
// project and environment, and -q (TestListening covers the line it hides).
func (w *world) run(t *testing.T, input string, args ...string) result {
	t.Helper()
	return w.runLoud(t, input, append([]string{"-q"}, args...)...)
}

// runLoud is run without -q.
func (w *world) runLoud(t *testing.T, input string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args = append([]string{"--project", w.project}, args...)
	code := run(detachAtEnd(t, t.Context()), args, strings.NewReader(input), &stdout, &stderr, w.env)
	return result{code, stdout.String(), stderr.String()}
}

// detachAtEnd returns ctx for a run of the chat host in the test's
// process, and detaches that run's registry again when the test ends. A
// registry keeps an adapter whose release did not fit in its budget (a hung
// workspace, or a report still in flight when the budget ran out on a
// loaded machine) open for its next Detach, and the Herdr adapter's claim
// goes on watching the pane meanwhile: the chat host's own process exits,
// the test's does not, so the test makes that next Detach. A registry with
// nothing left returns at once.
func detachAtEnd(tb testing.TB, ctx context.Context) context.Context {
	regs := make(chan *registry.Registry, 1)
	tb.Cleanup(func() {
		select {
		case reg := <-regs:
			if err := reg.Detach(context.Background()); err != nil {
				tb.Logf("detaching the chat host's registry again: %v", err)
			}
		default: // run ended before its Detach (bad flags, a failed Attach)
		}
	})
	return context.WithValue(ctx, detachedKey{}, func(r *registry.Registry) { regs <- r })
}

// chat is a chat host running in-process, fed one line at a time.
type chat struct {
	in   *io.PipeWriter
	done chan result
}

// start starts the chat host with -v. Feed it with send; end it with end.
func (w *world) start(t *testing.T, args ...string) *chat {
	t.Helper()
	pr, pw := io.Pipe()
	c := &chat{in: pw, done: make(chan result, 1)}
	args = append([]string{"--project", w.project, "-q", "-v"}, args...)
	ctx := detachAtEnd(t, t.Context())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		var stdout, stderr bytes.Buffer
		code := run(ctx, args, pr, &stdout, &stderr, w.env)
		pr.Close()
		c.done <- result{code, stdout.String(), stderr.String()}
	}()
	// Before detachAtEnd's cleanup: the host must have returned.
	t.Cleanup(func() {
		pw.Close()
		<-ran
	})
	return c
}

func (c *chat) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatalf("send %s: %v", line, err)
	}
}

// end closes the input and waits for the host to detach and return.
func (c *chat) end(t *testing.T) result {
	t.Helper()
	c.in.Close()
	select {
	case r := <-c.done:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("the chat host did not return")
		return result{}
	}
}

// waitCalls waits until the emulator has received n pane calls (the
// emulator signals every call it logs), and returns them.
func (w *world) waitCalls(t *testing.T, n int) []herdrtest.Call {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	all, err := w.h.WaitCalls(ctx, func(all []herdrtest.Call) bool {
		pc := paneCalls(all)
		// Detach cancels a call still in flight: a call counts once it
		// finished or a later one started.
		return len(pc) > n || len(pc) == n && !pc[n-1].Unfinished
	})
	if err != nil {
		t.Fatalf("waited for %d herdr calls, have %d: %v (%v)", n, len(paneCalls(all)), states(paneCalls(all)), err)
	}
	return paneCalls(all)
}

// calls returns the pane calls the emulator received.
func (w *world) calls(t *testing.T) []herdrtest.Call {
	t.Helper()
	all, err := w.h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	return paneCalls(all)
}

// paneCalls leaves out the transport's protocol pings (the socket
// transport pings once per claim), which report nothing.
func paneCalls(all []herdrtest.Call) []herdrtest.Call {
	var calls []herdrtest.Call
	for _, c := range all {
		if c.Command != "ping" {
			calls = append(calls, c)
		}
	}
	return calls
}

// states renders each call as its state ("working", "blocked: Waiting for
// approval") or "release".
func states(calls []herdrtest.Call) []string {
	var out []string
	for _, c := range calls {
		switch c.Command {
		case "pane report-agent":
			s, _ := c.Flag("state")
			if m, ok := c.Flag("message"); ok {
				s += ": " + m
			}
			out = append(out, s)
		case "pane release-agent":
			out = append(out, "release")
		default:
			out = append(out, c.Command)
		}
	}
	return out
}

var fixedMessages = []string{"Waiting for approval", "Waiting for input", "Workflow needs attention"}

// checkCalls checks what every call must satisfy: a report or a release of
// the world's pane, with source custom:<app> and label <app>, only fixed
// messages, strictly increasing sequence numbers, successful, and the
// release last.
func (w *world) checkCalls(t *testing.T, calls []herdrtest.Call, app string) {
	t.Helper()
	if len(calls) == 0 {
		t.Fatal("no herdr calls")
	}
	var last uint64
	for i, c := range calls {
		if c.Command != "pane report-agent" && c.Command != "pane release-agent" {
			t.Errorf("call %d: command %q", i, c.Command)
		}
		// Detach cancels a report still in flight (the release supersedes
		// it): right before the release, a killed report-agent (CLI) or
		// one whose answer was never read (socket: the server logs no
		// answer, exit -1, even when it had applied the report) is
		// expected.
		cutOff := c.Unfinished || c.Transport == herdrtest.TransportSocket && c.Exit == -1
		cancelled := cutOff && c.Command == "pane report-agent" && i+1 < len(calls) && calls[i+1].Command == "pane release-agent"
		if c.Pane != w.h.Pane || c.Exit != 0 && !cancelled {
			t.Errorf("call %d: pane %q exit %d; want %q, 0", i, c.Pane, c.Exit, w.h.Pane)
		}
		if src, _ := c.Flag("source"); src != "custom:"+app {
			t.Errorf("call %d: --source %q; want custom:%s", i, src, app)
		}
		if agent, _ := c.Flag("agent"); agent != app {
			t.Errorf("call %d: --agent %q; want %s", i, agent, app)
		}
		if m, ok := c.Flag("message"); ok && !slices.Contains(fixedMessages, m) {
			t.Errorf("call %d: --message %q is not a fixed text", i, m)
		}
		s, _ := c.Flag("seq")
		seq, err := strconv.ParseUint(s, 10, 64)
		if err != nil || seq <= last {
			t.Errorf("call %d: --seq %q after %d; want a strictly increasing number", i, s, last)
		}
		last = seq
	}
	if c := calls[len(calls)-1]; c.Command != "pane release-agent" {
		t.Errorf("last call is %q; want pane release-agent", c.Command)
	}
}

// checkReleased checks that the pane has no agent any more.
func (w *world) checkReleased(t *testing.T) {
	t.Helper()
	info, err := w.h.Agent(w.h.Pane)
	if err != nil {
		t.Fatal(err)
	}
	if info.Found {
		t.Errorf("after the session the pane shows agent %q (%s); want it released", info.Agent, info.AgentStatus)
	}
}

func TestToolTurnWithApproval(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.start(t)
	w.waitCalls(t, 1) // Attach reports the current state at once: idle.
	for _, step := range []struct {
		line  string
		calls int // herdr calls expected once the line is applied
	}{
		{`{"op":"identity","session_id":"s-1","session_path":"/tmp/s-1.jsonl"}`, 1},
		{`{"op":"agent_start"}`, 2},
		{`{"op":"phase","phase":"tool_execution"}`, 2},
		{`{"op":"prompt_start","id":"p1","kind":"approval"}`, 3},
		{`{"op":"prompt_end","id":"p1"}`, 4},
		// A phase stays until replaced: end it, or the pane stays working.
		{`{"op":"phase","phase":"completed"}`, 4},
		{`{"op":"agent_settled"}`, 5},
	} {
		c.send(t, step.line)
		w.waitCalls(t, step.calls)
	}
	got := c.end(t)

	want := result{stdout: `line 1: identity -> idle (quiescent)
line 2: agent_start -> working (executing)
line 3: phase -> working (executing)
line 4: prompt_start -> blocked (awaiting_input) "Waiting for approval"
line 5: prompt_end -> working (executing)
line 6: phase -> working (executing)
line 7: agent_settled -> idle (completed)
detached
`}
	if diff := cmp.Diff(got, want, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("run (-got +want):\n%s", diff)
	}
	calls := w.calls(t)
	w.checkCalls(t, calls, "chat")
	wantStates := []string{"idle", "working", "blocked: Waiting for approval", "working", "idle", "release"}
	if diff := cmp.Diff(states(calls), wantStates); diff != "" {
		t.Errorf("states (-got +want):\n%s", diff)
	}
	// The session identity goes with the first report after it is known.
	if id, _ := calls[1].Flag("agent-session-id"); id != "s-1" {
		t.Errorf("working report: --agent-session-id %q; want s-1", id)
	}
	w.checkReleased(t)
}

func TestWorkflowOutlivesTurn(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.start(t)
	w.waitCalls(t, 1)
	for _, step := range []struct {
		line  string
		calls int
	}{
		{`{"op":"agent_start"}`, 2},
		{`{"op":"workflows","availability":"ready","roots":[{"id":"r1","status":"executing"}]}`, 2},
		{`{"op":"agent_settled"}`, 2},
		{`{"op":"workflows","availability":"ready","roots":[{"id":"r1","status":"awaiting_input","needs_attention":true}]}`, 3},
		{`{"op":"workflows","availability":"recovering","roots":[]}`, 3},
		{`{"op":"workflows","availability":"ready","roots":[{"id":"r1","status":"completed"}]}`, 4},
	} {
		c.send(t, step.line)
		w.waitCalls(t, step.calls)
	}
	got := c.end(t)

	want := result{stdout: `line 1: agent_start -> working (executing)
line 2: workflows -> working (executing)
line 3: agent_settled -> working (executing)
line 4: workflows -> blocked (awaiting_input) "Workflow needs attention"
line 5: workflows -> (no new state: workflows unknown)
line 6: workflows -> idle (quiescent)
detached
`}
	if diff := cmp.Diff(got, want, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("run (-got +want):\n%s", diff)
	}
	calls := w.calls(t)
	w.checkCalls(t, calls, "chat")
	wantStates := []string{"idle", "working", "blocked: Workflow needs attention", "idle", "release"}
	if diff := cmp.Diff(states(calls), wantStates); diff != "" {
		t.Errorf("states (-got +want):\n%s", diff)
	}
	w.checkReleased(t)
}

// TestScripts plays the sample scripts as a person would. Their sleeps make
// every state visible in practice, but a loaded machine may still merge
// two states, so only the order is checked, not that every state was sent.
func TestScripts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script string
		want   []string // every state the script goes through, in order
	}{
		{"turn.jsonl", []string{"idle", "working", "blocked: Waiting for approval", "working", "idle", "release"}},
		{"workflow.jsonl", []string{"idle", "working", "blocked: Workflow needs attention", "working", "idle", "release"}},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			got := w.run(t, "", "--script", filepath.Join("testdata", tc.script))
			if diff := cmp.Diff(got, result{}, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("run (-got +want):\n%s", diff)
			}
			calls := w.calls(t)
			w.checkCalls(t, calls, "chat")
			if s := states(calls); len(s) < 2 || !isSubsequence(s, tc.want) || s[len(s)-2] != "idle" {
				t.Errorf("states %q: want an ordered part of %q ending with idle, release", s, tc.want)
			}
			w.checkReleased(t)
		})
	}
}

// isSubsequence reports whether every element of sub appears in seq, in
// order.
func isSubsequence(sub, seq []string) bool {
	i := 0
	for _, s := range seq {
		if i < len(sub) && sub[i] == s {
			i++
		}
	}
	return i == len(sub)
}

func TestMalformedLines(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	script := filepath.Join("testdata", "malformed.jsonl")
	got := w.run(t, "", "--script", script)
	want := result{stderr: fmt.Sprintf(`chat: %[1]s:4: not a JSON object with an op: unexpected end of JSON input
chat: %[1]s:5: unknown op "dance"
chat: %[1]s:6: phase: json: unknown field "phse"
chat: %[1]s:7: prompt_start: unknown prompt kind "password" (want approval, question, secret or menu)
chat: %[1]s:8: tasks: "running" must be a number of tasks, 0 or more
`, script)}
	if diff := cmp.Diff(got, want, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("run (-got +want):\n%s", diff)
	}
	// The good lines around the bad ones still ran.
	calls := w.calls(t)
	w.checkCalls(t, calls, "chat")
	w.checkReleased(t)
}

func TestBadLines(t *testing.T) {
	t.Parallel()
	w := &world{project: t.TempDir(), env: []string{"HOME=" + t.TempDir()}} // outside Herdr
	for _, tc := range []struct {
		name, line, want string
	}{
		{"not JSON", `op agent_start`, `not a JSON object with an op: invalid character 'o' looking for beginning of value`},
		{"no op", `{"phase":"thinking"}`, `missing "op"`},
		{"field of another op", `{"op":"agent_start","phase":"thinking"}`, `agent_start: json: unknown field "phase"`},
		{"two values", `{"op":"quit"} {"op":"quit"}`, `not a JSON object with an op: invalid character '{' after top-level value`},
		{"bad phase", `{"op":"phase","phase":"napping"}`, `phase: unknown phase "napping" (want awaiting, thinking, streaming, tool_execution, idle, completed, error or none)`},
		{"prompt without id", `{"op":"prompt_start","kind":"menu"}`, `prompt_start: missing "id"`},
		{"prompt_end with kind", `{"op":"prompt_end","id":"p1","kind":"menu"}`, `prompt_end: prompt_end takes no "kind"`},
		{"bad availability", `{"op":"workflows","availability":"maybe"}`, `workflows: unknown workflow availability "maybe" (want ready, unavailable or recovering)`},
		{"bad root status", `{"op":"workflows","availability":"ready","roots":[{"id":"r1","status":"dozing"}]}`, `workflows: root "r1": unknown workflow status "dozing"`},
		{"tasks without count", `{"op":"tasks"}`, `tasks: "running" must be a number of tasks, 0 or more`},
		{"negative sleep", `{"op":"sleep","ms":-5}`, `sleep: "ms" must be a number of milliseconds from 0 to 60000`},
		{"sleep as string", `{"op":"sleep","ms":"5"}`, `sleep: json: cannot unmarshal string into Go struct field sleepLine.ms of type int`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := w.run(t, "# a comment\n\n"+tc.line+"\n")
			want := result{stderr: "chat: stdin:3: " + tc.want + "\n"}
			if diff := cmp.Diff(got, want, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("run (-got +want):\n%s", diff)
			}
		})
	}
}

func TestQuit(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	got := w.run(t, "{\"op\":\"agent_start\"}\n{\"op\":\"quit\"}\n{\"op\":\"dance\"}\n", "-v")
	// The line after quit is never read.
	want := result{stdout: "line 1: agent_start -> working (executing)\nline 2: quit -> working (executing)\ndetached\n"}
	if diff := cmp.Diff(got, want, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("run (-got +want):\n%s", diff)
	}
	w.checkCalls(t, w.calls(t), "chat")
	w.checkReleased(t)
}

// TestNoClaim covers the sessions that must leave the pane alone although
// they run in it.
func TestNoClaim(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		args       []string
		project    string // project settings, if any
		wantStderr string // a part of the log expected on stderr
	}{
		{name: "print mode", args: []string{"--mode", "print"}},
		{name: "json mode", args: []string{"--mode", "json"}},
		{name: "no UI", args: []string{"--no-ui"}},
		{name: "subagent", args: []string{"--role", "subagent"}},
		{name: "workflow stage", args: []string{"--role", "workflow-stage"}},
		{
			name:       "conflicting reporter loaded",
			args:       []string{"--loaded-extension", "/x/herdr-atomic-reporter/index.ts"},
			wantStderr: "kind=unsupported",
		},
		{
			name:    "disabled by the trusted project",
			args:    []string{"--trust-project"},
			project: `{"herdr":{"enabled":false}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			if tc.project != "" {
				w.writeSettings(t, filepath.Join(w.project, ".chat"), tc.project)
			}
			got := w.run(t, "{\"op\":\"agent_start\"}\n{\"op\":\"agent_settled\"}\n", tc.args...)
			if got.code != 0 || got.stdout != "" {
				t.Errorf("run = %d, stdout %q; want 0, empty", got.code, got.stdout)
			}
			if tc.wantStderr == "" && got.stderr != "" || !strings.Contains(got.stderr, tc.wantStderr) {
				t.Errorf("stderr = %q; want it to contain %q", got.stderr, tc.wantStderr)
			}
			if calls := w.calls(t); len(calls) != 0 {
				t.Errorf("herdr calls %q; want none", states(calls))
			}
		})
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		args    []string
		global  string
		project string
		wantApp string // "" means no herdr call at all
	}{
		{name: "untrusted project is ignored", project: `{"herdr":{"enabled":false}}`, wantApp: "chat"},
		{name: "disabled globally", global: `{"herdr":{"enabled":false}}`},
		{
			name:    "trusted project wins over global",
			args:    []string{"--trust-project"},
			global:  `{"herdr":{"enabled":false}}`,
			project: `{"herdr":{"enabled":true}}`,
			wantApp: "chat",
		},
		{name: "other app", args: []string{"--app", "other"}, wantApp: "other"},
		{
			name:    "other app reads its own folders",
			args:    []string{"--app", "other"},
			global:  `{"herdr":{"enabled":false}}`, // in ~/.chat: not ours
			wantApp: "other",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			if tc.global != "" {
				w.writeSettings(t, filepath.Join(w.home, ".chat", "agent"), tc.global)
			}
			if tc.project != "" {
				w.writeSettings(t, filepath.Join(w.project, ".chat"), tc.project)
			}
			got := w.run(t, "{\"op\":\"agent_start\"}\n", tc.args...)
			if diff := cmp.Diff(got, result{}, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("run (-got +want):\n%s", diff)
			}
			calls := w.calls(t)
			if tc.wantApp == "" {
				if len(calls) != 0 {
					t.Errorf("herdr calls %q; want none", states(calls))
				}
				return
			}
			w.checkCalls(t, calls, tc.wantApp)
			w.checkReleased(t)
		})
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	w := &world{project: t.TempDir(), env: []string{"HOME=" + t.TempDir()}} // outside Herdr
	for _, tc := range []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{name: "help", args: []string{"-h"}, wantCode: 0, wantStderr: "Usage of chat:"},
		{name: "unknown flag", args: []string{"--colour"}, wantCode: 2, wantStderr: "flag provided but not defined: -colour"},
		{name: "argument", args: []string{"script.jsonl"}, wantCode: 2, wantStderr: `chat: unexpected argument "script.jsonl"`},
		{name: "bad mode", args: []string{"--mode", "gui"}, wantCode: 2, wantStderr: `unknown mode "gui"`},
		{name: "bad log level", args: []string{"--log-level", "loud"}, wantCode: 2, wantStderr: `chat: unknown log level "loud"`},
		{name: "bad app", args: []string{"--app", "my app"}, wantCode: 2, wantStderr: `Options.App "my app"`},
		{name: "missing script", args: []string{"--script", "testdata/nope.jsonl"}, wantCode: 1, wantStderr: "nope.jsonl"},
		{name: "debug log level", args: []string{"--log-level", "debug"}, wantCode: 0, wantStderr: "chat: no workspace is listening"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := w.runLoud(t, "", tc.args...)
			if got.code != tc.wantCode || !strings.Contains(got.stderr, tc.wantStderr) {
				t.Errorf("run = %d, stderr %q; want %d, containing %q", got.code, got.stderr, tc.wantCode, tc.wantStderr)
			}
		})
	}
}

// TestSignalReleasesPane runs the chat host as a real process (this test
// binary, re-executed to run main), interrupts it mid-session, and checks
// that it released the pane before it ended.
func TestSignalReleasesPane(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	t.Parallel()
	w := newWorld(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "--project", w.project)
	cmd.Env = append(slices.Clone(w.env), runMainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if _, err := io.WriteString(stdin, "{\"op\":\"agent_start\"}\n"); err != nil {
		t.Fatal(err)
	}
	w.waitCalls(t, 2) // idle at attach, then working
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the interrupted chat host ended with %v (stderr %q); want it killed by SIGINT", err, stderr.String())
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("the chat host ended with %v; want it killed by SIGINT, re-raised after the release", err)
	}
	calls := w.calls(t)
	w.checkCalls(t, calls, "chat")
	if diff := cmp.Diff(states(calls), []string{"idle", "working", "release"}); diff != "" {
		t.Errorf("states (-got +want):\n%s", diff)
	}
	w.checkReleased(t)
}

// TestListening checks the line the host prints at start, once: which
// workspace listens, or that none does and each adapter's reason; -q
// silences it.
func TestListening(t *testing.T) {
	t.Parallel()
	const none = "chat: no workspace is listening ("
	for _, tc := range []struct {
		name    string
		inHerdr bool
		global  string // global settings, if any
		args    []string
		want    string   // the whole of stderr, or its start when wantWhy is set
		wantWhy []string // reasons within the parentheses
	}{
		{name: "in a pane", inHerdr: true, want: "chat: reporting to herdr\n"},
		{
			name: "outside every workspace",
			want: none,
			wantWhy: []string{
				"herdr: adapter inactive: HERDR_ENV is not set (not inside a Herdr pane)",
				"terminal: adapter inactive: the host handed over no terminal",
				"tmux: adapter inactive: TMUX is not set (not inside a tmux pane)",
			},
		},
		{
			name:    "print mode in a pane",
			inHerdr: true,
			args:    []string{"--mode", "print"},
			want:    none,
			wantWhy: []string{"herdr: host may not claim a pane: adapter inactive: not an interactive root session: the host is not interactive (a print, JSON or RPC run, or no UI)"},
		},
		{
			name:    "disabled globally",
			inHerdr: true,
			global:  `{"herdr":{"enabled":false}}`,
			want:    none,
			wantWhy: []string{"herdr: disabled by global settings"},
		},
		{name: "quiet", inHerdr: true, args: []string{"-q"}},
		{name: "quiet outside", args: []string{"-q"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := &world{project: t.TempDir(), home: t.TempDir()}
			if tc.inHerdr {
				w = newWorld(t)
			}
			w.env = append(w.env, "HOME="+w.home, "XDG_STATE_HOME="+filepath.Join(w.home, "state"))
			if tc.global != "" {
				w.writeSettings(t, filepath.Join(w.home, ".chat", "agent"), tc.global)
			}
			got := w.runLoud(t, "", tc.args...)
			if got.code != 0 || got.stdout != "" {
				t.Errorf("run = %d, stdout %q; want 0, empty", got.code, got.stdout)
			}
			if tc.wantWhy == nil {
				if got.stderr != tc.want {
					t.Errorf("stderr %q; want %q", got.stderr, tc.want)
				}
				return
			}
			if !strings.HasPrefix(got.stderr, tc.want) || !strings.HasSuffix(got.stderr, ")\n") ||
				strings.Count(got.stderr, "\n") != 1 {
				t.Errorf("stderr %q; want one line %q...)", got.stderr, tc.want)
			}
			for _, why := range tc.wantWhy {
				if !strings.Contains(got.stderr, why) {
					t.Errorf("stderr %q; want it to name %q", got.stderr, why)
				}
			}
		})
	}
}

// TestIdentityResume checks that the identity op's resume array becomes
// the session's resume argv, and that a malformed one is refused.
func TestIdentityResume(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		line    string
		want    session.Identity
		wantErr string
	}{
		{
			name: "with resume",
			line: `{"op":"identity","session_id":"s-1","resume":["chat","--resume","s-1"]}`,
			want: withResume(session.Identity{ID: "s-1"}, "chat", "--resume", "s-1"),
		},
		{name: "without resume", line: `{"op":"identity","session_id":"s-1"}`, want: session.Identity{ID: "s-1"}},
		{
			name:    "resume as a string",
			line:    `{"op":"identity","session_id":"s-1","resume":"chat --resume s-1"}`,
			wantErr: "identity: ",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			p := &player{store: session.NewStore(), name: "stdin", stderr: &stderr}
			if err := p.play(t.Context(), strings.NewReader(tc.line+"\n")); err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" {
				if !strings.Contains(stderr.String(), tc.wantErr) {
					t.Errorf("stderr %q; want an error containing %q", stderr.String(), tc.wantErr)
				}
				return
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr %q; want none", stderr.String())
			}
			if diff := cmp.Diff(p.store.Snapshot().Identity, tc.want); diff != "" {
				t.Errorf("identity (-got +want):\n%s", diff)
			}
		})
	}
}

// TestWorkspaceFailureExitsZero runs the chat host as a real process in an
// emulated pane whose herdr breaks after the first reports, and checks that
// the host still exits 0 after detaching: a workspace failure is logged as
// a diagnostic, never the chat's failure.
func TestWorkspaceFailureExitsZero(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		wantKind   string // the diagnostic expected on stderr
		breakHerdr func(t *testing.T, w *world)
		// answered: the failing report reaches the emulator and is
		// answered. The test waits for that before quitting, so that the
		// diagnostic does not depend on a CLI start fitting in the half of
		// the release budget a withdrawn report is waited for.
		answered bool
	}{
		{"hung herdr that ignores SIGTERM", "timeout", func(t *testing.T, w *world) {
			if runtime.GOOS == "windows" {
				t.Skip("no SIGTERM on Windows")
			}
			setFault(t, w, herdrtest.Fault{Hang: true, HangIgnoreTERM: true})
		}, false},
		{"failing herdr", "protocol_rejected", func(t *testing.T, w *world) { setFault(t, w, herdrtest.Fault{FailFirst: 1000}) }, true},
		{"herdr exits with a usage error", "protocol_rejected", func(t *testing.T, w *world) { setFault(t, w, herdrtest.Fault{ExitUsage: true}) }, false},
		{"herdr binary removed", "spawn_failed", func(t *testing.T, w *world) {
			if err := os.Remove(w.h.Bin); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"herdr binary no longer executable", "spawn_failed", func(t *testing.T, w *world) {
			if runtime.GOOS == "windows" {
				t.Skip("no executable bit on Windows")
			}
			// Replace the link rather than chmod it: chmod would follow it
			// to this test binary.
			if err := os.Remove(w.h.Bin); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(w.h.Bin, []byte("not a program\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			// The faults are the CLI's: keep to that transport. A 1 s
			// deadline keeps the hung case quick and the healthy calls
			// before the fault well inside it on a loaded machine.
			w.writeSettings(t, filepath.Join(w.home, ".chat", "agent"), `{"herdr":{"timeout":"1s","transport":"cli"}}`)
			cmd, stdin, out := w.startProcess(t, "-v", "--log-level", "warn")
			// The idle claim at attach is answered before the change, which
			// latest-wins would otherwise rightly merge into it.
			w.waitCalls(t, 1)
			if _, err := io.WriteString(stdin, "{\"op\":\"agent_start\"}\n"); err != nil {
				t.Fatal(err)
			}
			w.waitCalls(t, 2) // idle at attach, then working
			tc.breakHerdr(t, w)
			if _, err := io.WriteString(stdin, "{\"op\":\"agent_settled\"}\n"); err != nil {
				t.Fatal(err)
			}
			if tc.answered {
				w.waitCalls(t, 3) // idle, working, then the failing settled report
			}
			if tc.wantKind == "timeout" {
				// The release at quit is bounded by the registry's budget,
				// whose end is the host's cancellation, not a timeout: wait
				// until the report timed out on its own deadline (it is
				// retried, so a second hung call has started).
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				if _, err := w.h.WaitCalls(ctx, func(all []herdrtest.Call) bool {
					hung := 0
					for _, c := range paneCalls(all) {
						if c.Hung {
							hung++
						}
					}
					return hung >= 2
				}); err != nil {
					t.Fatalf("waiting for the hung report to time out and be retried: %v", err)
				}
			}
			stdin.Close()
			err := cmd.Wait()
			if err != nil {
				t.Errorf("the chat host ended with %v; want exit status 0\nstderr:\n%s", err, out.stderr.String())
			}
			if !strings.HasSuffix(out.stdout.String(), "detached\n") {
				t.Errorf("stdout %q; want it to end with detached", out.stdout.String())
			}
			// What went wrong is said on stderr, as a diagnostic.
			if !strings.Contains(out.stderr.String(), "kind="+tc.wantKind) {
				t.Errorf("stderr has no %s diagnostic:\n%s", tc.wantKind, out.stderr.String())
			}
		})
	}
}

func setFault(t *testing.T, w *world, f herdrtest.Fault) {
	t.Helper()
	if err := w.h.SetFault(f); err != nil {
		t.Fatal(err)
	}
}

// processOutput is what a chat process printed.
type processOutput struct{ stdout, stderr bytes.Buffer }

// startProcess starts the chat host as a real process (this test binary,
// re-executed to run main) in the world, and returns its stdin.
func (w *world) startProcess(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, *processOutput) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, append([]string{"--project", w.project, "-q"}, args...)...)
	cmd.Env = append(slices.Clone(w.env), runMainEnv+"=1")
	out := new(processOutput)
	cmd.Stdout, cmd.Stderr = &out.stdout, &out.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	return cmd, stdin, out
}

// withResume returns id with the resume command words (the test's own,
// never holding a NUL byte).
func withResume(id session.Identity, words ...string) session.Identity {
	id, err := id.WithResume(words...)
	if err != nil {
		panic(err)
	}
	return id
}
