package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/hook"
)

// timedHook runs the agent's hook with the payload at path, logs how long
// it took (with the load), and returns it.
func (a *agentProc) timedHook(t *testing.T, path string) time.Duration {
	t.Helper()
	start := time.Now()
	a.hook(t, path)
	took := time.Since(start)
	t.Logf("hook %s took %v (load %s)", filepath.Base(path), took.Round(time.Millisecond), loadAverage())
	return took
}

// TestDeletedBridgeSocketIsListenedAgain: the bridge's socket file is
// removed while the bridge lives (a /tmp cleaner, where the runtime
// directory is under $TMPDIR). The live bridge listens again, every later
// event reaches the pane in order, no hook waits its full ready bound, and
// the session ends released, by that same bridge.
func TestDeletedBridgeSocketIsListenedAgain(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{InView: []string{"w1:p1"}})
	dir, rt := runtimeEnv(t)
	a := startAgent(t, bin, "claude-code", append(h.PaneEnv(t.TempDir()), rt...))
	a.hook(t, fixture("claude-code", "SessionStart"))
	a.hook(t, fixture("claude-code", "UserPromptSubmit"))
	waitStatus(t, h, "UserPromptSubmit", herdrtest.StatusWorking)
	pid := bridgePID(t, dir)
	socks, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	if len(socks) != 1 {
		t.Fatalf("sockets %q, want one", socks)
	}
	for round := range 2 { // deleted twice: the socket listened again is watched too
		if err := os.Remove(socks[0]); err != nil {
			t.Fatal(err)
		}
		for _, s := range []hookStep{
			{"PermissionRequest", herdrtest.StatusBlocked},
			{"PostToolUse", herdrtest.StatusWorking},
		} {
			if took := a.timedHook(t, fixture("claude-code", s.event)); took >= readyTimeout {
				t.Errorf("round %d: hook %s took %v: it waited its full ready bound (%v)", round, s.event, took, readyTimeout)
			}
			waitStatus(t, h, s.event, s.want)
		}
	}
	a.timedHook(t, fixture("claude-code", "Stop"))
	waitStatus(t, h, "Stop", herdrtest.StatusIdle)
	if now := bridgePID(t, dir); now != pid {
		t.Errorf("bridge %d replaced by %d: the live bridge was not found again", pid, now)
	}
	a.timedHook(t, fixture("claude-code", "SessionEnd"))
	waitStatus(t, h, "SessionEnd", "")
	waitExit(t, pid)
	noLeftovers(t, bin)
	want := []string{"idle", "working", "blocked", "working", "blocked", "working", "idle", "released"}
	if diff := cmp.Diff(reportedStates(t, h), want); diff != "" {
		t.Errorf("states reported (-got +want):\n%s", diff)
	}
}

// TestBridgeFilesAreNotWrittenThroughLinks: links planted at the bridge's
// own files (its process id, terminal, last event time, log and lock) are
// not followed: what they point to is left as it was, and the session
// still works.
func TestBridgeFilesAreNotWrittenThroughLinks(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{})
	dir, rt := runtimeEnv(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(h.PaneEnv(t.TempDir()), rt...)
	p := bridgePaths(dir, hook.ClaudeCode, paneVars(env))
	victims := t.TempDir()
	const content = "the victim's own content\n"
	targets := map[string]string{}
	for name, path := range map[string]string{"pid": p.pid, "tty": p.tty, "last": p.last, "log": p.log, "lock": p.lock} {
		target := filepath.Join(victims, name)
		if err := os.WriteFile(target, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		targets[name] = target
	}
	a := startAgent(t, bin, "claude-code", env)
	a.hook(t, fixture("claude-code", "SessionStart"))
	a.hook(t, fixture("claude-code", "UserPromptSubmit"))
	waitStatus(t, h, "UserPromptSubmit", herdrtest.StatusWorking)
	pid := bridgePID(t, dir)
	a.hook(t, fixture("claude-code", "SessionEnd"))
	waitStatus(t, h, "SessionEnd", "")
	waitExit(t, pid)
	for name, target := range targets {
		if b, err := os.ReadFile(target); err != nil || string(b) != content {
			t.Errorf("%s: the file its link pointed to now holds %q, %v", name, b, err)
		}
	}
}
