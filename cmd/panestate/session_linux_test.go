package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/proc"
)

// agentProc is a running stand-in agent.
type agentProc struct {
	cmd *exec.Cmd
	in  *os.File
	out *bufio.Scanner
}

// startAgent starts a stand-in agent for agent in env; it runs bin's hook.
func startAgent(t *testing.T, bin, agent string, env []string) *agentProc {
	t.Helper()
	return startAgentB(t, bin, agent, env)
}

// startAgentB is startAgent for tests and benchmarks.
func startAgentB(t testing.TB, bin, agent string, env []string) *agentProc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, agent)
	cmd.Env = append(env, standInEnv+"="+bin)
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &agentProc{cmd: cmd, in: w.(*os.File), out: bufio.NewScanner(r)}
	t.Cleanup(func() {
		a.in.Close()
		_ = a.cmd.Process.Kill()
		_ = a.cmd.Wait()
	})
	return a
}

// hook runs the agent's hook with the payload at path and waits for it.
func (a *agentProc) hook(t *testing.T, path string) {
	t.Helper()
	a.hookB(t, path)
}

// hookB is hook for tests and benchmarks.
func (a *agentProc) hookB(t testing.TB, path string) {
	t.Helper()
	if _, err := a.in.WriteString(path + "\n"); err != nil {
		t.Fatal(err)
	}
	if !a.out.Scan() {
		t.Fatalf("stand-in agent ended: %v", a.out.Err())
	}
	if got := a.out.Text(); got != "ran" {
		t.Fatalf("hook %s: %s", filepath.Base(path), got)
	}
}

// runtimeEnv is a private runtime directory for the bridges (short, for
// the socket path's limit).
func runtimeEnv(t *testing.T) (string, []string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "psrt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "panestate"), []string{"XDG_RUNTIME_DIR=" + dir}
}

// bridgePID reads the pid file of the one bridge in dir.
func bridgePID(t testing.TB, dir string) int {
	t.Helper()
	pid, err := strconv.Atoi(bridgeFile(t, dir, "*.pid"))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// bridgeFile returns the content, trimmed, of the one file in dir that
// pattern matches.
func bridgeFile(t testing.TB, dir, pattern string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(files) != 1 {
		t.Fatalf("bridge files %s: %q, want one", pattern, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// waitExit waits, without polling, until process pid (not a child) exits.
func waitExit(t testing.TB, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if err == unix.ESRCH {
			return // gone already
		}
		t.Fatal(err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 10_000)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("bridge %d still runs after 10 s", pid)
		}
		return
	}
}

// leftovers returns the processes still running bin.
func leftovers(bin string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if argv0, _, _ := strings.Cut(string(b), "\x00"); argv0 == bin {
			if _, comm, err := procInfo(pid); err == nil && comm != "" {
				if b, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !strings.Contains(string(b), ") Z ") {
					pids = append(pids, pid)
				}
			}
		}
	}
	return pids
}

// noLeftovers waits for every process still running bin to exit on its
// own (a bridge that started late gives up by itself), each within 10 s,
// and fails if any does not.
func noLeftovers(t *testing.T, bin string) {
	t.Helper()
	for _, pid := range leftovers(bin) {
		waitExit(t, pid)
	}
	if left := leftovers(bin); len(left) > 0 {
		t.Errorf("processes left behind: %v", left)
	}
}

// waitStatus waits until the pane shows status (and an agent), or for a
// release when status is "".
func waitStatus(t *testing.T, h *herdrtest.Herdr, step string, status herdrtest.Status) {
	t.Helper()
	waitStatusStep(t, h, step, status)
}

// waitStatusB is waitStatus for benchmarks.
func waitStatusB(b *testing.B, h *herdrtest.Herdr, status herdrtest.Status) {
	b.Helper()
	waitStatusStep(b, h, "setup", status)
}

func waitStatusStep(t testing.TB, h *herdrtest.Herdr, step string, status herdrtest.Status) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	info, err := h.Wait(ctx, h.Pane, func(a herdrtest.AgentInfo) bool {
		if status == "" {
			return a.Agent == ""
		}
		return a.Agent != "" && a.AgentStatus == status
	})
	if err != nil {
		var sent []string
		if calls, cerr := h.Calls(); cerr == nil {
			for _, c := range calls {
				st, _ := c.Flag("state")
				sent = append(sent, fmt.Sprintf("%d:%s:%s:%d:%s", c.Arrival, c.Command, st, c.Exit, c.Code))
			}
		}
		t.Fatalf("after %s: pane shows %+v, want %q: %v\nrequests: %v", step, info, status, err, sent)
	}
}

func TestClaudeCodeSessionInHerdr(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{Version: herdrtest.Version093, InView: []string{"w1:p1"}})
	dir, rt := runtimeEnv(t)
	a := startAgent(t, bin, "claude-code", append(h.PaneEnv(t.TempDir()), rt...))

	steps := []hookStep{
		{"SessionStart", herdrtest.StatusIdle},
		{"UserPromptSubmit", herdrtest.StatusWorking},
		{"PreToolUse", herdrtest.StatusWorking},
		{"PreToolUse-subagent", herdrtest.StatusWorking},
		{"PermissionRequest", herdrtest.StatusBlocked},
		{"PostToolUse", herdrtest.StatusWorking},
		{"Stop", herdrtest.StatusIdle},
		{"SubagentStop", herdrtest.StatusIdle},
	}
	var pid int
	for i, s := range steps {
		a.hook(t, fixture("claude-code", s.event))
		waitStatus(t, h, s.event, s.want)
		if i == 0 {
			pid = bridgePID(t, dir)
		}
	}
	// The id of the real SessionStart fixture.
	if got, _ := h.ResumeArgv(h.Pane); !slices.Equal(got, []string{"claude", "--resume", "b660c702-935c-4245-beda-6c3f6fd1336c"}) {
		t.Errorf("resume argv = %q, want claude --resume b660c702-935c-4245-beda-6c3f6fd1336c", got)
	}
	a.hook(t, fixture("claude-code", "SessionEnd"))
	waitStatus(t, h, "SessionEnd", "")
	waitExit(t, pid)

	// The states the pane went through, in the order Herdr received them.
	want := []string{"idle", "working", "blocked", "working", "idle", "released"}
	if diff := cmp.Diff(reportedStates(t, h), want); diff != "" {
		t.Errorf("states reported (-got +want):\n%s", diff)
	}
}

// checkPrivate fails when anything sent to Herdr holds the marker.
func checkPrivate(t *testing.T, calls []herdrtest.Call) {
	t.Helper()
	for _, c := range calls {
		b, _ := json.Marshal(c)
		if strings.Contains(string(b)+string(c.Params), marker) {
			t.Errorf("a request to Herdr carries a private field: %s %s", b, c.Params)
		}
	}
}

func TestAgentKilledMidTurnReleasesThePane(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{})
	dir, rt := runtimeEnv(t)
	a := startAgent(t, bin, "claude-code", append(h.PaneEnv(t.TempDir()), rt...))
	a.hook(t, fixture("claude-code", "SessionStart"))
	a.hook(t, fixture("claude-code", "UserPromptSubmit"))
	waitStatus(t, h, "UserPromptSubmit", herdrtest.StatusWorking)
	pid := bridgePID(t, dir)

	killed := time.Now()
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	waitStatus(t, h, "SIGKILL", "")
	t.Logf("released %v after the agent's SIGKILL", time.Since(killed).Round(time.Millisecond))
	waitExit(t, pid)
	noLeftovers(t, bin)
}

func TestHundredHooksLeaveNothingBehind(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{})
	dir, rt := runtimeEnv(t)
	a := startAgent(t, bin, "claude-code", append(h.PaneEnv(t.TempDir()), rt...))
	// A turn of six hooks, and after it a recap (a subagent's stop) and
	// a notification nobody needs.
	turn := []string{"UserPromptSubmit", "PermissionRequest", "PostToolUse", "PreToolUse", "Notification-permission_prompt",
		"Stop", "SubagentStop", "Notification-auth_success"}
	a.hook(t, fixture("claude-code", "SessionStart"))
	for i := range 98 { // with SessionStart and SessionEnd, 100 hook runs
		a.hook(t, fixture("claude-code", turn[i%len(turn)]))
	}
	// The 98th (97 mod 8 = 1) is the second of a turn: PermissionRequest.
	waitStatus(t, h, "98 hooks", herdrtest.StatusBlocked)
	pid := bridgePID(t, dir)
	a.hook(t, fixture("claude-code", "SessionEnd"))
	waitStatus(t, h, "SessionEnd", "")
	waitExit(t, pid)
	noLeftovers(t, bin)
	calls, err := h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) == 0 {
		t.Fatal("nothing reached Herdr")
	}
	checkPrivate(t, calls)
	if files, _ := filepath.Glob(filepath.Join(dir, "*.sock")); len(files) > 0 {
		t.Errorf("sockets left behind: %q", files)
	}
	// What the bridges leave in the runtime directory (the time of the last
	// event; a log only when a connection was refused) holds nothing of the
	// payloads.
	if files, _ := filepath.Glob(filepath.Join(dir, "*.log")); len(files) > 0 {
		t.Errorf("a bridge logged: %q", files)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), marker) {
			t.Errorf("%s holds a private field", filepath.Base(f))
		}
	}
}

// reportedStates returns the states Herdr was sent, in arrival order,
// repeats merged, a release as "released".
func reportedStates(t *testing.T, h *herdrtest.Herdr) []string {
	t.Helper()
	calls, err := h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	checkPrivate(t, calls)
	slices.SortFunc(calls, func(a, b herdrtest.Call) int { return a.Arrival - b.Arrival })
	var got []string
	for _, c := range calls {
		st := ""
		switch c.Command {
		case "pane report-agent":
			st, _ = c.Flag("state")
		case "pane release-agent":
			st = "released"
		default:
			continue
		}
		if len(got) == 0 || got[len(got)-1] != st {
			got = append(got, st)
		}
	}
	return got
}

// hookStep is a hook the stand-in agent runs and what the pane shows after.
type hookStep struct {
	event string
	want  herdrtest.Status
}

func TestOtherAgentsSessionsInHerdr(t *testing.T) {
	bin := buildPanestate(t)
	tests := []struct {
		agent string
		steps []hookStep
		want  []string
	}{
		{agent: "codex", steps: []hookStep{
			{"SessionStart", herdrtest.StatusIdle},
			{"UserPromptSubmit", herdrtest.StatusWorking},
			// Answered by the auto-review: the tool runs at once, and
			// the pane never shows blocked.
			{"PermissionRequest", herdrtest.StatusWorking},
			{"PostToolUse", herdrtest.StatusWorking},
			// Not answered: blocked after the grace.
			{"PermissionRequest", herdrtest.StatusBlocked},
			{"PostToolUse", herdrtest.StatusWorking},
			{"SubagentStop", herdrtest.StatusWorking},
			{"Stop", herdrtest.StatusIdle},
		}, want: []string{"idle", "working", "blocked", "working", "idle", "released"}},
		{agent: "gemini", steps: []hookStep{
			{"SessionStart", herdrtest.StatusIdle},
			{"BeforeAgent", herdrtest.StatusWorking},
			{"BeforeTool", herdrtest.StatusWorking},
			{"Notification", herdrtest.StatusBlocked},
			{"AfterTool", herdrtest.StatusWorking},
			{"AfterAgent", herdrtest.StatusIdle},
		}, want: []string{"idle", "working", "blocked", "working", "idle", "released"}},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			h := herdrtest.StartT(t, herdrtest.Options{InView: []string{"w1:p1"}})
			dir, rt := runtimeEnv(t)
			a := startAgent(t, bin, tt.agent, append(h.PaneEnv(t.TempDir()), rt...))
			var pid int
			for i, s := range tt.steps {
				a.hook(t, fixture(tt.agent, s.event))
				waitStatus(t, h, s.event, s.want)
				if i == 0 {
					pid = bridgePID(t, dir)
				}
			}
			if tt.agent == "codex" {
				// Codex sends no SessionEnd: the end is the agent's.
				a.in.Close()
				_ = a.cmd.Wait()
			} else {
				a.hook(t, fixture(tt.agent, "SessionEnd"))
			}
			waitStatus(t, h, "the end", "")
			waitExit(t, pid)
			if diff := cmp.Diff(reportedStates(t, h), tt.want); diff != "" {
				t.Errorf("states reported (-got +want):\n%s", diff)
			}
		})
	}
}

// TestHooksAtOnceStartOneBridge runs the first hooks of a session all at
// once, before any bridge listens: one bridge takes the pane, the others
// hand it their events and exit.
func TestHooksAtOnceStartOneBridge(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{})
	dir, rt := runtimeEnv(t)
	env := append(h.PaneEnv(t.TempDir()), rt...)
	// All of them mean working: the hooks' order is the scheduler's.
	events := []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse", "UserPromptSubmit"}
	cmds := make([]*exec.Cmd, len(events))
	for i, ev := range events {
		f, err := os.Open(fixture("claude-code", ev))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmds[i] = exec.Command(bin, "hook", "claude-code")
		cmds[i].Env, cmds[i].Stdin = env, f
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	waitStatus(t, h, "the hooks", herdrtest.StatusWorking)
	pid := bridgePID(t, dir)
	end, err := os.Open(fixture("claude-code", "SessionEnd"))
	if err != nil {
		t.Fatal(err)
	}
	defer end.Close()
	c := exec.Command(bin, "hook", "claude-code")
	c.Env, c.Stdin = env, end
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, h, "SessionEnd", "")
	waitExit(t, pid)
	noLeftovers(t, bin)
	// One bridge held the pane: every report and the release came from one
	// source and never went back to an older state.
	got := reportedStates(t, h)
	if len(got) == 0 || got[len(got)-1] != "released" || slices.Contains(got[:len(got)-1], "released") {
		t.Errorf("states reported %q: want one claim ending in one release", got)
	}
}

// TestIdleBridgeReleasesAndEnds: a bridge whose agent still runs but sends
// no hook for the idle limit releases the pane and exits.
func TestIdleBridgeReleasesAndEnds(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{})
	dir, rt := runtimeEnv(t)
	a := startAgent(t, bin, "claude-code", append(h.PaneEnv(t.TempDir()), append(rt, idleLimitEnv+"=300ms")...))
	a.hook(t, fixture("claude-code", "UserPromptSubmit"))
	waitStatus(t, h, "UserPromptSubmit", herdrtest.StatusWorking)
	pid := bridgePID(t, dir)
	// Nothing more: the idle limit ends the bridge, the agent still runs.
	waitStatus(t, h, "the idle limit", "")
	waitExit(t, pid)
	if !proc.Alive(a.cmd.Process.Pid) {
		t.Fatal("the stand-in agent ended: the idle limit was not what ended the bridge")
	}
	noLeftovers(t, bin)
}

// TestAnotherAgentInThePaneIsIgnored: an agent the agent started (claude
// -p in a tool, say) runs in the same pane with the same hooks; its events
// do not change the pane while the bridge's own agent runs.
func TestAnotherAgentInThePaneIsIgnored(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{})
	dir, rt := runtimeEnv(t)
	env := append(h.PaneEnv(t.TempDir()), rt...)
	a := startAgent(t, bin, "claude-code", env)
	a.hook(t, fixture("claude-code", "UserPromptSubmit"))
	waitStatus(t, h, "UserPromptSubmit", herdrtest.StatusWorking)
	pid := bridgePID(t, dir)

	// The nested agent: this test process runs its hooks, so the bridge
	// sees another agent process.
	for _, ev := range []string{"SessionStart", "Stop", "SessionEnd"} {
		f, err := os.Open(fixture("claude-code", ev))
		if err != nil {
			t.Fatal(err)
		}
		c := exec.Command(bin, "hook", "claude-code")
		c.Env, c.Stdin = env, f
		err = c.Run()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	a.hook(t, fixture("claude-code", "PermissionRequest"))
	waitStatus(t, h, "PermissionRequest", herdrtest.StatusBlocked)
	a.hook(t, fixture("claude-code", "SessionEnd"))
	waitStatus(t, h, "SessionEnd", "")
	waitExit(t, pid)
	if diff := cmp.Diff(reportedStates(t, h), []string{"working", "blocked", "released"}); diff != "" {
		t.Errorf("states reported (-got +want):\n%s", diff)
	}
}
