package tmux

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocsTmuxConf sources every ```tmux block of docs/tmux.md into a
// private server and expands the formats it sets, so that the lines users
// paste keep doing what the page says.
func TestDocsTmuxConf(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "tmux.md"))
	if err != nil {
		t.Fatal(err)
	}
	var conf strings.Builder
	for _, m := range regexp.MustCompile("(?s)```tmux\n(.*?)```").FindAllSubmatch(doc, -1) {
		conf.Write(m[1])
	}
	if conf.Len() == 0 {
		t.Fatal("docs/tmux.md has no ```tmux block")
	}
	s := startServer(t, nil)
	// Window w0 has two panes, the active one without an agent; window w1
	// one pane; a second session one more. Named windows, so that tmux's
	// automatic renaming cannot change #W while the test reads it.
	quiet := s.panes(t)[0]
	s.run(t, "rename-window", "-t", "test:0", "w0")
	blockedPane := s.splitPane(t)
	workingPane := strings.TrimSpace(s.run(t, "new-window", "-d", "-n", "w1", "-P", "-F", "#{pane_id}", "cat"))
	otherSession := strings.TrimSpace(s.run(t, "new-session", "-d", "-s", "other", "-P", "-F", "#{pane_id}", "cat"))
	// The borders show #{pane_current_command}: wait until every pane's
	// shell has become cat (the panes are other processes).
	eventually(t, "every pane to run cat", func() bool {
		out := s.run(t, "list-panes", "-a", "-F", "#{pane_current_command}")
		return strings.Count(out, "cat\n") == len(strings.Fields(out))
	})
	set := func(pane, state, message, agent string) {
		t.Helper()
		s.run(t, "set-option", "-p", "-t", pane, "@panestate_state", state, ";",
			"set-option", "-p", "-t", pane, "@panestate_message", message, ";",
			"set-option", "-p", "-t", pane, "@panestate_agent", agent)
	}
	set(blockedPane, "blocked", "Waiting for approval", "atomic")
	set(workingPane, "working", "", "chat")
	set(otherSession, "blocked", "Waiting for input", "chat")

	path := filepath.Join(t.TempDir(), "doc.conf")
	if err := os.WriteFile(path, []byte(conf.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s.run(t, "source-file", path)
	expand := func(option, target string) string {
		t.Helper()
		format := strings.TrimSuffix(s.run(t, "show-options", "-gv", option), "\n")
		return strings.TrimSuffix(s.run(t, "display-message", "-p", "-t", target, format), "\n")
	}
	yellow := "#[fg=black bg=yellow]"
	tests := []struct {
		name, option, target, want string
	}{
		// The last window-status-format of the page wins: the one that
		// loops over the window's panes.
		{"a window with a blocked pane that is not active", "window-status-format", "test:0", yellow + "0:w0*#[default]"},
		{"a window without a blocked pane", "window-status-format", "test:1", "1:w1#[default]"},
		{"current window: its active pane decides", "window-status-current-format", "test:0", "#[reverse]0:w0*#[default]"},
		{"current window with a working agent", "window-status-current-format", "test:1", "#[reverse]1:w1 (working)#[default]"},
		{"border of a pane without an agent", "pane-border-format", quiet, " 0 cat "},
		{"border of a blocked pane", "pane-border-format", blockedPane, " 1 cat " + yellow + "atomic: blocked - Waiting for approval#[default] "},
		{"border of a working pane", "pane-border-format", workingPane, " 0 cat #[fg=green]chat: working#[default] "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(expand(tt.option, tt.target), tt.want); diff != "" {
				t.Errorf("%s on %s (-got +want):\n%s", tt.option, tt.target, diff)
			}
		})
	}

	// status-right ends in the clock (%H:%M); what precedes it counts the
	// blocked panes of every session.
	clock := regexp.MustCompile(`[0-9]{2}:[0-9]{2}$`)
	count := func() string {
		t.Helper()
		got := expand("status-right", "test:0")
		if !clock.MatchString(got) {
			t.Fatalf("status-right %q does not end in the clock", got)
		}
		return got[:len(got)-len("00:00")]
	}
	if diff := cmp.Diff(count(), yellow+" 2 blocked #[default] "); diff != "" {
		t.Errorf("status-right with two blocked panes (-got +want):\n%s", diff)
	}
	set(otherSession, "idle", "", "chat")
	set(blockedPane, "working", "", "atomic")
	if diff := cmp.Diff(count(), ""); diff != "" {
		t.Errorf("status-right with no blocked pane (-got +want):\n%s", diff)
	}
}
