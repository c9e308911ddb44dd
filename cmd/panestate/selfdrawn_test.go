package main

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/hook"
)

// TestAgentsOwnRecordWins checks who writes the tab's OSC 7501 record for
// each agent's bridge: Claude Code and Codex write their own wherever the
// terminal answers their probe, so the bridge's progstatus adapter is off
// outside tmux and GNU screen even when forced or probed; inside them the
// agent's probe is not answered and the person's setting applies; Gemini
// CLI writes none, so the setting applies everywhere.
func TestAgentsOwnRecordWins(t *testing.T) {
	tests := []struct {
		agent  hook.Agent
		env    []string
		forced bool
		runs   bool
	}{
		{hook.ClaudeCode, []string{"TERM=xterm-256color"}, true, false},
		{hook.ClaudeCode, []string{"TERM=xterm-256color", "PANESTATE_PROGSTATUS=1"}, false, false},
		{hook.ClaudeCode, []string{"TERM=xterm-256color", "TMUX=/tmp/t,1,0", "TMUX_PANE=%1"}, true, true},
		{hook.ClaudeCode, []string{"TERM=xterm-256color", "TMUX=/tmp/t,1,0", "TMUX_PANE=%1"}, false, false},
		{hook.ClaudeCode, []string{"TERM=screen", "STY=1.pts-0"}, true, true},
		{hook.Codex, []string{"TERM=xterm-256color"}, true, false},
		{hook.Codex, []string{"TERM=xterm-256color", "TMUX=/tmp/t,1,0", "TMUX_PANE=%1"}, true, true},
		{hook.Gemini, []string{"TERM=xterm-256color"}, true, true},
		{hook.Gemini, []string{"TERM=xterm-256color", "PANESTATE_PROGSTATUS=1"}, false, true},
	}
	for _, tt := range tests {
		name := string(tt.agent) + " " + strings.Join(tt.env, " ")
		if tt.forced {
			name += " forced"
		}
		t.Run(name, func(t *testing.T) {
			d := drivers(tt.agent)["progstatus"]
			if d == nil {
				d = tabDrivers(tt.agent)["progstatus"]
			}
			c, ok := d.(adapter.Checker)
			if !ok {
				t.Fatalf("the progstatus driver of %s has no Check", tt.agent)
			}
			p := adapter.Params{Name: "progstatus", App: appName, Env: adapter.Env(tt.env), Host: bridgeHost, Terminal: io.Discard, Forced: tt.forced}
			err := c.Check(p)
			if tt.runs != (err == nil) {
				t.Fatalf("Check = %v; want it to run: %v", err, tt.runs)
			}
			if err != nil && !errors.Is(err, adapter.ErrInactive) {
				t.Errorf("Check = %v; want ErrInactive", err)
			}
			if err != nil && tt.forced && !strings.Contains(err.Error(), "writes no second record") {
				t.Errorf("Check = %v; want it to say the agent keeps the record", err)
			}
		})
	}
}
