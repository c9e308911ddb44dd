package agentlab

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
)

// tab is a plain terminal tab (no Herdr or tmux pane) that answers the
// OSC 7501 query and DA1, as iTerm2 does: the agent's pty, whose output it
// keeps.
type tab struct {
	noProbe bool // answer DA1 only, as tmux and screen do
	ptmx    *os.File
	mu      sync.Mutex
	out     []byte
	changed chan struct{}
}

// startInTab runs argv in dir on a new pty with env; the tab answers the
// OSC 7501 query unless noProbe (as tmux and screen, which answer DA1
// only).
func startInTab(t *testing.T, env []string, dir string, noProbe bool, argv ...string) (*tab, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	tb := &tab{ptmx: ptmx, noProbe: noProbe}
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 64<<10)
		answered := false
		for {
			n, err := ptmx.Read(buf)
			tb.mu.Lock()
			tb.out = append(tb.out, buf[:n]...)
			all := tb.out
			if tb.changed != nil {
				close(tb.changed)
				tb.changed = nil
			}
			tb.mu.Unlock()
			if !answered && !tb.noProbe && bytes.Contains(all, []byte("\x1b]7501;?")) {
				answered = true
				_, _ = ptmx.Write([]byte("\x1b]7501;?\a"))
			}
			if bytes.Contains(buf[:n], []byte("\x1b[c")) {
				_, _ = ptmx.Write([]byte("\x1b[?62;22c"))
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		_ = ptmx.Close()
		<-read
	})
	return tb, cmd
}

// waitFor waits until the output holds s, and fails after 60 s.
func (tb *tab) waitFor(t *testing.T, s string) {
	t.Helper()
	if !tb.within(60*time.Second, 0, s) {
		t.Fatalf("the tab never got %q; its OSC 7501 records: %q", s, tb.records())
	}
}

// count is how many times the output holds s.
func (tb *tab) count(s string) int {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return bytes.Count(tb.out, []byte(s))
}

// within waits until the output holds s more than n times, for at most d.
func (tb *tab) within(d time.Duration, n int, s string) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		tb.mu.Lock()
		found := bytes.Count(tb.out, []byte(s)) > n
		if tb.changed == nil {
			tb.changed = make(chan struct{})
		}
		changed := tb.changed
		tb.mu.Unlock()
		if found {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

var osc7501 = regexp.MustCompile(`\x1b\]7501;([^\x07\x1b]*)(?:\x07|\x1b\\)`)

// records are the bodies of the OSC 7501 sequences written so far.
func (tb *tab) records() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var bodies []string
	for _, m := range osc7501.FindAllSubmatch(tb.out, -1) {
		bodies = append(bodies, string(m[1]))
	}
	return bodies
}

// TestClaudeCodeOwnsTheTabsRecord runs the real Claude Code in a plain
// tab that answers its OSC 7501 probe, with panestate's hooks installed
// and progstatus.enabled set to true (the case where two writers would
// drive one record), through one turn with an approval against the mock
// model: Claude Code writes the tab's record itself, and panestate's
// bridge (running, for the OSC 9;4 indicator it was asked to drive)
// writes no record beside it.
func TestClaudeCodeOwnsTheTabsRecord(t *testing.T) {
	bin := Binary(t, ClaudeCode)
	home := NewHome(t)
	model := StartModel(t, Anthropic, ToolTurn(bashCall("tab"), "Done."))
	SetupClaude(t, home, model)
	home.WriteFile(t, ".panestate/agent/settings.json", []byte(`{"progstatus": {"enabled": true}}`))
	home.WriteFile(t, ".panestate/agent/claude-code.json", []byte(`{"terminal": {"enabled": true}}`))
	env := append(home.Env(), "TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0")
	tb, cmd := startInTab(t, env, home.Work, false, bin, "--permission-mode", "default")

	tb.waitFor(t, "\x1b]7501;state=idle:app=claude-code")
	tb.waitFor(t, "\x1b]9;4;0\x1b\\") // the bridge's first write: it runs, on this tab
	tb.waitFor(t, "for shortcuts")
	if _, err := tb.ptmx.Write([]byte("makethefile")); err != nil {
		t.Fatal(err)
	}
	tb.waitFor(t, "makethefile") // no spaces: Claude Code draws a space as a cursor move
	if _, err := tb.ptmx.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	tb.waitFor(t, "\x1b]7501;state=blocked:app=claude-code:kind=permission")
	tb.waitFor(t, "amend")
	// The dialog takes keys a moment after it is drawn, and nothing on the
	// screen says when: Enter ("1. Yes") again until Claude Code works on.
	working := tb.count("\x1b]7501;state=working:app=claude-code")
	for i := 0; ; i++ {
		if _, err := tb.ptmx.Write([]byte("\r")); err != nil {
			t.Fatal(err)
		}
		if tb.within(time.Second, working, "\x1b]7501;state=working:app=claude-code") {
			break
		}
		if i == 20 {
			t.Fatal("Claude Code never took the approval")
		}
	}
	tb.waitFor(t, "\x1b]7501;state=done:app=claude-code")
	if _, err := os.Stat(filepath.Join(home.Work, "out-tab.txt")); err != nil {
		t.Errorf("the approved tool did not run: %v", err)
	}
	if _, err := tb.ptmx.Write([]byte("\x03")); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.ptmx.Write([]byte("\x03")); err != nil {
		t.Fatal(err)
	}
	tb.waitFor(t, "\x1b]7501;state=clear")
	_ = cmd.Wait()

	var roots, ours []string
	for _, r := range tb.records() {
		switch {
		case r == "?":
		case strings.Contains(r, "id=panestate") || strings.Contains(r, "app=panestate"):
			ours = append(ours, r)
		default:
			state, _, _ := strings.Cut(r, ":")
			if n := len(roots); n == 0 || roots[n-1] != state || state == "state=clear" {
				roots = append(roots, state) // a working record's msg changes with the activity
			}
		}
	}
	if len(ours) != 0 {
		t.Errorf("panestate wrote records beside Claude Code's: %q", ours)
	}
	if diff := cmp.Diff(roots, []string{"state=idle", "state=working", "state=blocked", "state=working", "state=done", "state=clear", "state=clear"}); diff != "" {
		t.Errorf("Claude Code's records (-got +want):\n%s\nall: %q", diff, tb.records())
	}
}

// subagentTurn is the Script of a turn that starts one subagent (Claude
// Code's Agent tool), then ends. The subagent answers once shown reports
// that the tab shows its child record (at most 10 s): answered at once,
// its SubagentStart and SubagentStop can reach the bridge within one
// 50 ms throttle window on a loaded machine, and the registry rightly
// reports nothing for a subagent that came and went inside it.
func subagentTurn(shown func() bool) Script {
	return func(r Request) Reply {
		switch {
		case strings.Contains(r.Prompt, "SUBTASK"):
			for end := time.Now().Add(10 * time.Second); !shown() && time.Now().Before(end); {
				time.Sleep(20 * time.Millisecond)
			}
			return Reply{Text: "Sub done."}
		case r.Tools > 0 && len(r.Results) == 0:
			return Reply{Tool: &ToolCall{Name: "Agent", Input: map[string]any{
				"description": "Check the work", "prompt": "SUBTASK say done", "subagent_type": "general-purpose"}}}
		}
		return Reply{Text: "Done."}
	}
}

// TestClaudeCodeSubagentIsAChildRecord runs the real Claude Code, in a
// tab inside GNU screen (STY set, its probe unanswered: Claude Code writes
// no record, and progstatus.enabled applies), through a turn that starts a
// subagent: the real SubagentStart and SubagentStop hooks make it a child
// record under panestate's (id=panestate/<agent_id>), removed when it
// finishes.
func TestClaudeCodeSubagentIsAChildRecord(t *testing.T) {
	bin := Binary(t, ClaudeCode)
	home := NewHome(t)
	var tabOf atomic.Pointer[tab]
	model := StartModel(t, Anthropic, subagentTurn(func() bool {
		tb := tabOf.Load()
		return tb != nil && tb.count("\x1b]7501;state=working:id=panestate/") > 0
	}))
	SetupClaude(t, home, model)
	home.WriteFile(t, ".panestate/agent/settings.json", []byte(`{"progstatus": {"enabled": true}}`))
	env := append(home.Env(), "STY=4242.pts-1.host")
	tb, cmd := startInTab(t, env, home.Work, true, bin, "--permission-mode", "default")
	tabOf.Store(tb)
	tb.waitFor(t, "for shortcuts")
	if _, err := tb.ptmx.Write([]byte("startasubagent")); err != nil {
		t.Fatal(err)
	}
	tb.waitFor(t, "startasubagent")
	if _, err := tb.ptmx.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	tb.waitFor(t, "\x1b]7501;state=done:id=panestate:app=panestate")
	tb.waitFor(t, "\x1b]7501;state=clear:id=panestate/")
	var got []string
	for _, r := range tb.records() {
		if r != "?" { // Claude Code's probe, which the tab leaves unanswered
			got = append(got, r)
		}
	}
	child := regexp.MustCompile(`^state=working:id=panestate/([0-9A-Za-z._+-]{1,32})$`)
	var id string
	if len(got) > 2 {
		if m := child.FindStringSubmatch(got[2]); m != nil {
			id = m[1]
		}
	}
	want := []string{
		"state=idle:id=panestate:app=panestate",
		"state=working:id=panestate:app=panestate",
		"state=working:id=panestate/" + id,
		"state=done:id=panestate:app=panestate",
		"state=clear:id=panestate/" + id,
	}
	// SubagentStop and Stop may come in either order: the subagent's
	// record goes and the parent is done, whichever is first.
	if len(got) == len(want) && got[3] == want[4] {
		got[3], got[4] = got[4], got[3]
	}
	if diff := cmp.Diff(got, want); id == "" || diff != "" {
		t.Errorf("records (-got +want), the subagent's id %q:\n%s", id, diff)
	}
	_ = cmd.Process.Kill() // the session is over; its bridge ends with it
	_ = cmd.Wait()
}
