package herdrtest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	Main()
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}

// result is what one invocation of the fake binary produced.
type result struct {
	Code   int
	Stdout string
	Stderr string
}

// runner sends commands to h: with transport CLI it invokes the fake
// binary of h with h's pane environment plus env; with transport socket it
// sends the request the command stands for on the socket, and reports the
// response as the CLI would print it (see sendSocket).
type runner struct {
	t   *testing.T
	h   *Herdr
	tr  Transport
	env []string
	// unset names variables removed from the CLI's environment (after
	// env): Herdr tells an empty variable from an unset one.
	unset []string
}

func newRunner(t *testing.T, opts Options) runner {
	return runner{t: t, h: StartT(t, opts), tr: TransportCLI}
}

// on returns r sending over tr.
func (r runner) on(tr Transport) runner { r.tr = tr; return r }

func (r runner) run(args ...string) result {
	r.t.Helper()
	if r.tr == TransportSocket {
		return r.sendSocket(args)
	}
	cmd := exec.CommandContext(r.t.Context(), r.h.Bin, args...)
	cmd.Env = slices.DeleteFunc(append(append(os.Environ(), r.h.Env()...), r.env...), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(r.unset, k)
	})
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		r.t.Fatalf("herdr %q: %v", args, err)
	}
	return result{Code: cmd.ProcessState.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}
}

// want runs args and compares the whole result.
func (r runner) want(want result, args ...string) {
	r.t.Helper()
	if diff := cmp.Diff(r.run(args...), want); diff != "" {
		r.t.Errorf("herdr %q (-got +want):\n%s", args, diff)
	}
}

// ok runs args and expects exit 0 with no output.
func (r runner) ok(args ...string) { r.t.Helper(); r.want(result{}, args...) }

// usage expects exit 2 with one plain stderr line.
func (r runner) usage(line string, args ...string) {
	r.t.Helper()
	r.want(result{Code: 2, Stderr: line + "\n"}, args...)
}

// rust expects exit 1 with the Rust Debug of a custom io::Error.
func (r runner) rust(msg string, args ...string) {
	r.t.Helper()
	r.want(result{Code: 1, Stderr: "Error: Custom { kind: Other, error: " + rustDebugString(msg) + " }\n"}, args...)
}

// agent asserts the agent label and status of pane, read from the state.
func (r runner) agent(pane, agent, status string) {
	r.t.Helper()
	info, err := r.h.Agent(pane)
	if err != nil {
		r.t.Fatal(err)
	}
	got := [2]string{info.Agent, string(info.AgentStatus)}
	if diff := cmp.Diff(got, [2]string{agent, status}); diff != "" {
		r.t.Errorf("pane %s (agent, status) (-got +want):\n%s", pane, diff)
	}
	if info.Found != (agent != "") {
		r.t.Errorf("pane %s: Found = %v with agent %q", pane, info.Found, agent)
	}
}

func (r runner) hwm(pane, source string, want uint64, wantOK bool) {
	r.t.Helper()
	got, ok := r.h.HighWater(pane, source)
	if got != want || ok != wantOK {
		r.t.Errorf("HighWater(%s, %s) = %d, %v; want %d, %v", pane, source, got, ok, want, wantOK)
	}
}

// sendSocket sends the request that the CLI command args (in the canonical
// form the tests use: the pane id first, each value its own argument)
// stands for, under the CLI's request id, and turns the response into what
// the CLI prints: nothing for an agent command's ok, the response line on
// stdout for a read, and the error line on stderr with exit 1.
func (r runner) sendSocket(args []string) result {
	r.t.Helper()
	if len(args) < 2 {
		r.t.Fatalf("socket: no request for %q", args)
	}
	cmd, rest := args[0]+" "+args[1], args[2:]
	flags := map[string]*string{}
	var resume []string
	pane := ""
	if len(rest) > 0 {
		pane, rest = rest[0], rest[1:]
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] == "--" {
			resume = rest[i+1:]
			break
		}
		if i+1 >= len(rest) || !strings.HasPrefix(rest[i], "--") {
			r.t.Fatalf("socket: cannot translate %q", args)
		}
		v := rest[i+1]
		flags[strings.TrimPrefix(rest[i], "--")] = &v
		i++
	}
	var seq *uint64
	if v := flags["seq"]; v != nil {
		n, err := strconv.ParseUint(strings.TrimPrefix(*v, "+"), 10, 64)
		if err != nil {
			r.t.Fatalf("socket: seq %q", *v)
		}
		seq = &n
	}
	str := func(name string) string {
		if v := flags[name]; v != nil {
			return *v
		}
		return ""
	}
	id, show := wire.IDCLIRequest, false
	var method wire.Method
	var params any
	switch cmd {
	case "pane report-agent":
		method, params = wire.MethodReportAgent, wire.ReportAgentParams{PaneID: pane, Source: str("source"), Agent: str("agent"),
			State: wire.AgentState(str("state")), Message: flags["message"], Seq: seq,
			AgentSessionID: flags["agent-session-id"], AgentSessionPath: flags["agent-session-path"], ResumeArgv: resume}
	case "pane release-agent":
		method, params = wire.MethodReleaseAgent, wire.ReleaseAgentParams{PaneID: pane, Source: str("source"), Agent: str("agent"), Seq: seq}
	case "pane report-agent-session":
		method, params = wire.MethodReportAgentSession, wire.ReportAgentSessionParams{PaneID: pane, Source: str("source"), Agent: str("agent"), Seq: seq,
			AgentSessionID: flags["agent-session-id"], AgentSessionPath: flags["agent-session-path"],
			SessionStartSource: flags["session-start-source"], ResumeArgv: resume}
	case "pane get":
		id, show, method, params = "cli:pane:get", true, wire.MethodPaneGet, wire.PaneTarget{PaneID: pane}
	case "pane list":
		id, show, method, params = "cli:pane:list", true, wire.MethodPaneList, wire.PaneListParams{}
	case "agent get":
		id, show, method, params = "cli:agent:get", true, wire.MethodAgentGet, wire.AgentTarget{Target: pane}
	case "agent focus":
		id, show, method, params = "cli:agent:focus", true, wire.MethodAgentFocus, wire.AgentTarget{Target: pane}
	case "agent list":
		id, show, method, params = "cli:agent:list", true, wire.MethodAgentList, nil
	default:
		r.t.Fatalf("socket: no request for %q", args)
	}
	req, err := wire.NewRequest(id, method, params)
	if err != nil {
		r.t.Fatalf("socket: %q: %v", args, err)
	}
	resp, err := wire.Do(r.t.Context(), r.h.Socket, req)
	if err != nil {
		r.t.Fatalf("socket: %q: %v", args, err)
	}
	switch {
	case resp.Error != nil:
		return result{Code: 1, Stderr: string(resp.Line())}
	case show:
		return result{Stdout: string(resp.Line())}
	}
	return result{}
}

// both are the transports a server rule applies to.
var both = []Transport{TransportCLI, TransportSocket}

func serverErr(id, code, msg string) result {
	return result{Code: 1, Stderr: `{"id":"` + id + `","error":{"code":"` + code + `","message":"` + msg + `"}}` + "\n"}
}

const (
	src = "custom:test"
	lbl = "test-agent"
)

// report builds `pane report-agent <pane> --source --agent --state [extra]`.
func report(pane, source, agent, state string, extra ...string) []string {
	return append([]string{"pane", "report-agent", pane, "--source", source, "--agent", agent, "--state", state}, extra...)
}

// release builds `pane release-agent <pane> --source --agent [extra]`.
func release(pane, source, agent string, extra ...string) []string {
	return append([]string{"pane", "release-agent", pane, "--source", source, "--agent", agent}, extra...)
}

func TestIsHerdrName(t *testing.T) {
	for _, tc := range []struct {
		arg0 string
		want bool
	}{
		{"herdr", true},
		{"/tmp/x/herdr", true},
		{"herdr.exe", true},
		{"HERDR.EXE"[:5] + ".EXE", false}, // "HERDR" is not "herdr"
		{"herdr.EXE", true},
		{"herdr.test", false},
		{"fakeherdr", false},
		{"herdrx", false},
		{"", false},
	} {
		if got := isHerdrName(tc.arg0); got != tc.want {
			t.Errorf("isHerdrName(%q) = %v, want %v", tc.arg0, got, tc.want)
		}
	}
}

func TestIsHerdrNameAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { isHerdrName("/usr/local/bin/myprogram") }); n != 0 {
		t.Errorf("isHerdrName allocates %v times", n)
	}
}

func TestRustDebugString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"done", `"done"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"x\ny\t\x00\x1b", `"x\ny\t\0\u{1b}"`},
		{"héllo", `"héllo"`},
	} {
		if got := rustDebugString(tc.in); got != tc.want {
			t.Errorf("rustDebugString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParseRustU64(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"+5", 5, true},
		{"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false},
		{"", 0, false},
		{"+", 0, false},
		{"++5", 0, false},
		{"-1", 0, false},
		{"+-1", 0, false},
		{" 5", 0, false},
		{"1.5", 0, false},
		{"0x10", 0, false},
		{"1_000", 0, false},
	} {
		got, ok := parseRustU64(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRustU64(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestNormalizeAgentLabel(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"  ", "", false},
		{"", "", false},
		{"Claude-Code", "claude", true},
		{" AMP-LOCAL ", "amp", true},
		{"qoder", "qodercli", true},
		{"cursor-agent", "cursor", true},
		{"antigravity", "agy", true},
		{"Kilo Code", "kilo", true},
		{"codex.EXE", "codex", true},
		{"pi.js", "pi", true},
		{"my-Agent", "my-Agent", true},
		{" my agent ", "my agent", true},
		{"my-agent.exe", "my-agent.exe", true},
		// The rest of Herdr 0.8.2's table (src/detect/mod.rs:188-214).
		{"Cline", "cline", true},
		{"kiro-cli", "kiro", true},
		{"GHCS", "copilot", true},
		{"github-copilot", "copilot", true},
		{"qwen code", "qwen", true},
		{"maki.exe", "maki", true},
		{"hermes-agent", "hermes", true},
		{"Kilo-Code", "kilo", true},
		{"devin cli", "devin", true},
		{"antigravity-cli", "agy", true},
		{"mastra-code", "mastracode", true},
		{"opencode2", "opencode", true},
		{"kimi-code", "kimi", true},
		{"grok-build", "grok", true},
		{"qodercn", "qodercli", true},
	} {
		got, ok := normalizeAgentLabel(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("normalizeAgentLabel(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestRestartGuidance checks the second half of a protocol_mismatch
// message for a server older than the CLI (src/session.rs,
// active_restart_after_update_guidance, and its test
// active_restart_after_update_guidance_respects_socket_override).
func TestRestartGuidance(t *testing.T) {
	const head = "Stop the old server to use the new version.\nStopping exits pane processes.\n"
	for _, tc := range []struct {
		name    string
		g       globals
		socket  string // HERDR_SOCKET_PATH, "-" for unset
		session string // HERDR_SESSION, "-" for unset
		want    string
	}{
		{"socket_override", globals{}, "/tmp/custom-herdr.sock", "-",
			head + "Run `HERDR_SOCKET_PATH=/tmp/custom-herdr.sock herdr server stop`, then restart Herdr with the same socket override."},
		{"explicit_session_beats_the_override", globals{session: "work", hasSession: true}, "/tmp/custom-herdr.sock", "-",
			head + "Run `herdr session stop work`, then run `herdr session attach work` again."},
		{"explicit_default_session", globals{session: "default", hasSession: true}, "-", "work",
			head + "Run `herdr server stop`, then run `herdr` again."},
		{"session_variable", globals{}, "-", "work",
			head + "Run `herdr session stop work`, then run `herdr session attach work` again."},
		{"nothing", globals{}, "-", "-",
			head + "Run `herdr server stop`, then run `herdr` again."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range map[string]string{"HERDR_SOCKET_PATH": tc.socket, "HERDR_SESSION": tc.session} {
				t.Setenv(k, v) // restored after the test
				if v == "-" {
					os.Unsetenv(k)
				}
			}
			if got := restartGuidance(tc.g); got != tc.want {
				t.Errorf("restartGuidance = %q\nwant %q", got, tc.want)
			}
		})
	}
}
