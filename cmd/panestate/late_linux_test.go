package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/hook"
)

// TestLateBridgeDoesNotClaimThePane starts bridges as a hook would, but
// late: after the pane's last bridge applied a newer event (its session
// ended), or for an agent that is gone. Each exits without a word to the
// workspace and without a pid file.
func TestLateBridgeDoesNotClaimThePane(t *testing.T) {
	bin := buildPanestate(t)
	gone := exec.CommandContext(t.Context(), "/bin/sh", "-c", "exit 0")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	live := startAgent(t, "unused", "claude-code", nil)
	tests := []struct {
		name string
		pid  int
		last string // the last bridge's last event, "" for none
	}{
		{name: "after its session's bridge ended", pid: live.cmd.Process.Pid, last: "100\n"},
		{name: "for an agent that is gone", pid: gone.Process.Pid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := herdrtest.StartT(t, herdrtest.Options{})
			dir, err := os.MkdirTemp("", "pslate")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			p := bridgePaths(dir, hook.ClaudeCode, []string{"TMUX_PANE=%1"})
			if tt.last != "" {
				if err := os.WriteFile(p.last, []byte(tt.last), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			line, err := json.Marshal(hook.Event{Agent: hook.ClaudeCode, Kind: hook.KindTurnStart, Session: "s1", PID: tt.pid, Time: 50})
			if err != nil {
				t.Fatal(err)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd := exec.CommandContext(t.Context(), bin, bridgeCommand, string(hook.ClaudeCode), p.sock, p.lock, p.pid, p.last, p.log)
			cmd.Env = append(h.PaneEnv(t.TempDir()), bridgeEventEnv+"="+string(line), "XDG_RUNTIME_DIR="+dir)
			cmd.ExtraFiles = []*os.File{w} // fd 3: the ready pipe, as a hook hands it
			err = cmd.Start()
			w.Close()
			if err != nil {
				t.Fatal(err)
			}
			waitExit(t, cmd.Process.Pid)
			if err := cmd.Wait(); err != nil {
				t.Errorf("bridge: %v", err)
			}
			calls, err := h.Calls()
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) > 0 {
				t.Errorf("the late bridge called Herdr %d times, want none: first %v", len(calls), calls[0].Args)
			}
			if _, err := os.Stat(p.pid); !os.IsNotExist(err) {
				t.Errorf("pid file: %v, want none", err)
			}
			if got := readLast(p.last); tt.last != "" && strconv.FormatInt(got, 10)+"\n" != tt.last {
				t.Errorf("last event time %d, want it kept", got)
			}
		})
	}
}

// TestBridgeClaimsDespiteALastEventFromTheFuture: the time the pane's last
// bridge recorded is later than now (the clock was set back since, or it
// is from an earlier boot): that record says nothing of this session, and
// the bridge claims the pane.
func TestBridgeClaimsDespiteALastEventFromTheFuture(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{Version: herdrtest.Version093, InView: []string{"w1:p1"}})
	dir, rt := runtimeEnv(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(h.PaneEnv(t.TempDir()), rt...)
	p := bridgePaths(dir, hook.ClaudeCode, paneVars(env))
	if err := os.WriteFile(p.last, []byte(strconv.FormatInt(math.MaxInt64/2, 10)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, bin, "claude-code", env)
	a.hook(t, fixture("claude-code", "SessionStart"))
	a.hook(t, fixture("claude-code", "UserPromptSubmit"))
	waitStatus(t, h, "UserPromptSubmit", herdrtest.StatusWorking)
	a.hook(t, fixture("claude-code", "Stop"))
	waitStatus(t, h, "Stop", herdrtest.StatusIdle)
	pid := bridgePID(t, dir)
	a.hook(t, fixture("claude-code", "SessionEnd"))
	waitStatus(t, h, "SessionEnd", "")
	waitExit(t, pid)
}
