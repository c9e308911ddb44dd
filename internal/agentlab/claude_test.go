//go:build linux

package agentlab

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bashCall is a Bash tool call that makes the file out-<marker>.txt in the
// work directory.
func bashCall(marker string) ToolCall {
	return ToolCall{Name: "Bash", Input: map[string]any{"command": "echo done > out-" + marker + ".txt", "description": "Make a file"}}
}

func TestClaudeCodeHeadlessTurnWithATool(t *testing.T) {
	bin := Binary(t, ClaudeCode)
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			model := StartModel(t, Anthropic, ToolTurn(bashCall("MARKCMD1"), "Done MARKFINAL1."))
			home := NewHome(t)
			SetupClaude(t, home, model)
			p := StartPane(t, ws, home, PaneOptions{})
			p.Run(t, nil, bin, "-p", "please make the file MARKPROMPT1", "--allowedTools", "Bash")
			if code := p.WaitExit(t); code != 0 {
				t.Fatalf("claude -p exited %d:\n%s", code, p.Screen(t))
			}
			p.WaitState(t, p.Started, "")
			if _, err := os.Stat(filepath.Join(home.Work, "out-MARKCMD1.txt")); err != nil {
				t.Errorf("the tool did not run: %v", err)
			}
			got := States(p.Timeline(t))
			want := []string{"idle", "working", "idle", "released"}
			if diff := cmp.Diff(got, want); diff != "" {
				t.Errorf("the pane showed (-got +want):\n%s\ntimeline: %s", diff, p.Describe(t))
			}
			t.Logf("%s: %s", ws, p.Describe(t))
			for _, m := range []string{"MARKPROMPT1", "MARKCMD1", "MARKFINAL1"} {
				if leaks := p.Leaks(t, m); len(leaks) > 0 {
					t.Errorf("%s reached the workspace: %q", m, leaks)
				}
			}
		})
	}
}
