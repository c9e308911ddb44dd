package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tmuxServer is a private tmux server, killed by its socket at the end.
type tmuxServer struct {
	bin, sock, pid, pane string
}

// startTmux starts a private tmux server whose one pane runs cat. Without
// tmux the test fails under CI=true (.ci/run installs it) and is skipped
// otherwise.
func startTmux(t *testing.T) *tmuxServer {
	t.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tmux is not installed (CI must have it): %v", err)
		}
		t.Skip("tmux not installed")
	}
	dir, err := os.MkdirTemp("", "pstm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &tmuxServer{bin: bin, sock: filepath.Join(dir, "s")}
	s.run(t, "-f", "/dev/null", "new-session", "-d", "-s", "test", "cat")
	t.Cleanup(func() { _ = exec.Command(bin, "-S", s.sock, "kill-server").Run() })
	s.pid = strings.TrimSpace(s.run(t, "display-message", "-p", "#{pid}"))
	s.pane = strings.TrimSpace(s.run(t, "display-message", "-p", "#{pane_id}"))
	return s
}

func (s *tmuxServer) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(s.bin, append([]string{"-S", s.sock}, args...)...).Output()
	if err != nil {
		t.Fatalf("tmux %q: %v", args, err)
	}
	return string(out)
}

// env is the environment of a program in the server's pane.
func (s *tmuxServer) env() []string {
	return []string{"TMUX=" + s.sock + "," + s.pid + ",0", "TMUX_PANE=" + s.pane}
}

// state returns the pane's @panestate_state option ("" when unset).
func (s *tmuxServer) state(t *testing.T) string {
	t.Helper()
	out, _ := exec.Command(s.bin, "-S", s.sock, "show-options", "-p", "-t", s.pane, "-v", "@panestate_state").Output()
	return strings.TrimSpace(string(out))
}

// waitState waits until the pane's state option is want. tmux tells no
// one when an option changes, so this polls, as adapters/tmux's tests do.
func (s *tmuxServer) waitState(t *testing.T, step, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := s.state(t)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: @panestate_state = %q, want %q", step, got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestClaudeCodeSessionInTmux(t *testing.T) {
	bin := buildPanestate(t)
	s := startTmux(t)
	dir, rt := runtimeEnv(t)
	home := t.TempDir()
	env := append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, rt...)
	a := startAgent(t, bin, "claude-code", append(env, s.env()...))

	steps := []struct{ event, want string }{
		{"SessionStart", "idle"},
		{"UserPromptSubmit", "working"},
		{"PreToolUse", "working"},
		{"PermissionRequest", "blocked"},
		{"PostToolUse", "working"},
		{"Stop", "idle"},
	}
	var got, want []string
	var pid int
	for i, st := range steps {
		a.hook(t, fixture("claude-code", st.event))
		s.waitState(t, st.event, st.want)
		got, want = append(got, s.state(t)), append(want, st.want)
		if i == 0 {
			pid = bridgePID(t, dir)
		}
	}
	a.hook(t, fixture("claude-code", "SessionEnd"))
	s.waitState(t, "SessionEnd", "")
	waitExit(t, pid)
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("states (-got +want):\n%s", diff)
	}
	if out := s.run(t, "show-options", "-p", "-t", s.pane); strings.Contains(out, marker) {
		t.Errorf("pane options carry a private field:\n%s", out)
	}
}
