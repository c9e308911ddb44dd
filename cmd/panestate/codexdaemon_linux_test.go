package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/hook"
)

// startNamed starts a stand-in agent as the program name (a link to the
// test binary, so that the system names the process so) with args, in
// env; it runs bin's hook for agent.
func startNamed(t *testing.T, bin, name, agent string, env []string, args ...string) *agentProc {
	t.Helper()
	return startNamedB(t, bin, name, agent, env, args...)
}

// startNamedB is startNamed for tests and benchmarks.
func startNamedB(t testing.TB, bin, name, agent string, env []string, args ...string) *agentProc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, args...)
	cmd.Env = append(env, standInEnv+"="+bin, standInAgentEnv+"="+agent)
	return startCmd(t, cmd)
}

// TestCodexDaemonPaneReleasedWhenItsTUIQuits: Codex 0.169.0 runs the TUI's
// session in `codex app-server --managed-daemon`, which runs every hook
// and outlives the TUI (/quit fires no SessionEnd). The pane follows the
// Codex TUI in it, not the daemon: when the TUI exits, the pane is
// released, and the daemon's later hooks claim it no more.
func TestCodexDaemonPaneReleasedWhenItsTUIQuits(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{})
	dir, rt := runtimeEnv(t)
	env := append(h.PaneEnv(t.TempDir()), rt...)
	tui := startNamed(t, bin, "codex", "codex", env, "resume")
	daemon := startNamed(t, bin, "codex", "codex", env, "app-server", "--listen", "unix://", "--managed-daemon")

	daemon.hook(t, fixture("codex", "SessionStart"))
	daemon.hook(t, fixture("codex", "UserPromptSubmit"))
	waitStatus(t, h, "UserPromptSubmit", herdrtest.StatusWorking)
	pid := bridgePID(t, dir)

	tui.in.Close() // the person quits the TUI; the daemon works on
	_ = tui.cmd.Wait()
	waitStatus(t, h, "the TUI's exit", "")
	waitExit(t, pid)

	daemon.hook(t, fixture("codex", "Stop"))
	if files, _ := filepath.Glob(filepath.Join(dir, "*.pid")); len(files) > 0 {
		t.Errorf("the daemon's hook after the TUI quit started a bridge: %q", files)
	}
	if got := reportedStates(t, h); len(got) == 0 || got[len(got)-1] != "released" {
		t.Errorf("states reported: %q, want the pane released last", got)
	}
}

// TestCodexDaemonTwoTUIsInThePaneReportNothing: with two Codex TUIs in the
// pane (one run inside the other) the daemon's hook cannot tell whose
// session it is, and reports nothing rather than guess.
func TestCodexDaemonTwoTUIsInThePaneReportNothing(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{})
	dir, rt := runtimeEnv(t)
	env := append(h.PaneEnv(t.TempDir()), rt...)
	startNamed(t, bin, "codex", "codex", env)
	second := startNamed(t, bin, "codex", "codex", env, "resume")
	daemon := startNamed(t, bin, "codex", "codex", env, "app-server", "--managed-daemon")
	if _, ok := codexPanePID(hook.Codex, daemon.cmd.Process.Pid, paneVars(env)); ok {
		t.Error("two Codex TUIs in the pane: the hook takes one of them")
	}
	second.in.Close()
	_ = second.cmd.Wait()
	if pid, ok := codexPanePID(hook.Codex, daemon.cmd.Process.Pid, paneVars(env)); !ok || pid == daemon.cmd.Process.Pid {
		t.Errorf("one Codex TUI left in the pane: %d, %v; want it", pid, ok)
	}
	startNamed(t, bin, "codex", "codex", env, "resume")
	daemon.hook(t, fixture("codex", "SessionStart"))
	if files, _ := filepath.Glob(filepath.Join(dir, "*.pid")); len(files) > 0 {
		t.Errorf("a bridge started: %q", files)
	}
	if calls, err := h.Calls(); err != nil || len(calls) > 0 {
		t.Errorf("requests to Herdr: %v, %v; want none", calls, err)
	}
}

// TestPaneVarsTellTmuxServersApart: the first panes of two tmux servers
// are both %0; their agents' bridges and Codex daemon hooks must not take
// one for the other, so the pane's key carries the server (TMUX).
func TestPaneVarsTellTmuxServersApart(t *testing.T) {
	work := []string{"HOME=/h", "TMUX=/tmp/tmux-0/work,100,0", "TMUX_PANE=%0"}
	play := []string{"HOME=/h", "TMUX=/tmp/tmux-0/play,200,0", "TMUX_PANE=%0"}
	if diff := cmp.Diff(paneVars(work), []string{"TMUX=/tmp/tmux-0/work,100,0", "TMUX_PANE=%0"}); diff != "" {
		t.Errorf("(-got +want):\n%s", diff)
	}
	if slices.Equal(paneVars(work), paneVars(play)) {
		t.Errorf("two servers' %%0 panes have one key: %q", paneVars(work))
	}
	dir := t.TempDir()
	if a, b := bridgePaths(dir, hook.ClaudeCode, paneVars(work)), bridgePaths(dir, hook.ClaudeCode, paneVars(play)); a.sock == b.sock {
		t.Errorf("one bridge for both servers' %%0 panes: %s", a.sock)
	}
	// A Codex TUI in each; the daemon of work's finds work's TUI, not two.
	bin := buildPanestate(t)
	tui := startNamed(t, bin, "codex", "codex", work)
	startNamed(t, bin, "codex", "codex", play)
	daemon := startNamed(t, bin, "codex", "codex", work, "app-server", "--managed-daemon")
	if pid, ok := codexPanePID(hook.Codex, daemon.cmd.Process.Pid, paneVars(work)); !ok || pid != tui.cmd.Process.Pid {
		t.Errorf("the daemon's hook found %d, %v; want the TUI of its own server's pane, %d", pid, ok, tui.cmd.Process.Pid)
	}
}

// BenchmarkCodexPanePID is what a hook of Codex's daemon adds to find the
// Codex TUI in its pane: a walk of the process table.
func BenchmarkCodexPanePID(b *testing.B) {
	bin := buildPanestate(b)
	env := []string{"TMUX=/tmp/x,1,0", "TMUX_PANE=%7"}
	tui := startNamedB(b, bin, "codex", "codex", env)
	daemon := startNamedB(b, bin, "codex", "codex", env, "app-server", "--managed-daemon")
	pane := paneVars(env)
	for b.Loop() {
		if pid, ok := codexPanePID(hook.Codex, daemon.cmd.Process.Pid, pane); !ok || pid != tui.cmd.Process.Pid {
			b.Fatalf("found %d, %v; want the TUI %d", pid, ok, tui.cmd.Process.Pid)
		}
	}
}
