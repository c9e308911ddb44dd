package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// record is one transcript record Claude Code 2.1.328 wrote (testdata/
// claude-code/transcript, paths rewritten to /home/user), without its
// newline.
func record(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "claude-code", "transcript", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

func TestTranscriptKindOfClaudeCodesRecords(t *testing.T) {
	tests := []struct {
		name string
		want Kind
	}{
		// Escape (or "No") on the permission dialog: two records.
		{"rejected-tool-result", KindTurnEnd},
		{"interrupted-for-tool-use", KindTurnEnd},
		// Escape while it works, after it had started to answer.
		{"interrupted", KindTurnEnd},
		// What the hooks report already, or nothing to the pane.
		{"approved-tool-result", KindIgnore},
		{"automode-blocked-tool-result", KindIgnore},
		{"prompt", KindIgnore},
		{"assistant-tool-use", KindIgnore},
		{"attachment", KindIgnore},
		{"last-prompt", KindIgnore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TranscriptKind(ClaudeCode, record(t, tt.name)); got != tt.want {
				t.Errorf("TranscriptKind = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTranscriptKindOfVariants(t *testing.T) {
	rejected := string(record(t, "rejected-tool-result"))
	interrupted := string(record(t, "interrupted-for-tool-use"))
	tests := []struct {
		name   string
		record string
		agent  Agent
		want   Kind
	}{
		{"a rejection with the person's words goes on working",
			strings.Replace(rejected, "STOP what you are doing and wait for the user to tell you how to proceed.", "The user said: use a temp file", 1), ClaudeCode, KindActivity},
		{"a subagent's rejection", strings.Replace(rejected, `"isSidechain":false`, `"isSidechain":true`, 1), ClaudeCode, KindIgnore},
		{"a subagent's interruption", strings.Replace(interrupted, `"isSidechain":false`, `"isSidechain":true`, 1), ClaudeCode, KindIgnore},
		{"a prompt that reads like an interruption", `{"type":"user","message":{"role":"user","content":"[Request interrupted by user]"}}`, ClaudeCode, KindIgnore},
		{"an interruption among other text", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"},{"type":"text","text":"more"}]}}`, ClaudeCode, KindIgnore},
		{"the rejection text without the denial mark", strings.Replace(rejected, `"toolDenialKind":"user-rejected"`, `"x":"y"`, 1), ClaudeCode, KindIgnore},
		{"not JSON", `{"type":"user",`, ClaudeCode, KindIgnore},
		{"too long", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]},"pad":"` + strings.Repeat("x", MaxRecord) + `"}`, ClaudeCode, KindIgnore},
		{"another agent", interrupted, Gemini, KindIgnore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TranscriptKind(tt.agent, []byte(tt.record)); got != tt.want {
				t.Errorf("TranscriptKind = %v, want %v", got, tt.want)
			}
		})
	}
	if !strings.Contains(rejected, `"toolDenialKind":"user-rejected"`) || !strings.Contains(rejected, `"isSidechain":false`) {
		t.Fatal("the rejection fixture changed: the variants above no longer vary it")
	}
}

func TestTrackerObserve(t *testing.T) {
	tests := []struct {
		name        string
		before      []Kind
		observe     Kind
		want        State
		wantChanged bool
	}{
		{"a rejected permission goes idle", []Kind{KindTurnStart, KindApproval}, KindTurnEnd, StateIdle, true},
		{"a rejected question goes idle", []Kind{KindTurnStart, KindQuestion}, KindTurnEnd, StateIdle, true},
		{"an interrupted turn goes idle", []Kind{KindTurnStart, KindActivity}, KindTurnEnd, StateIdle, true},
		{"a rejection with words goes on working", []Kind{KindTurnStart, KindApproval}, KindActivity, StateWorking, true},
		{"activity does not unblock what is not blocked", []Kind{KindTurnStart}, KindActivity, StateWorking, false},
		{"after the turn nothing changes", []Kind{KindTurnStart, KindTurnEnd}, KindTurnEnd, StateIdle, false},
		{"other kinds change nothing", []Kind{KindTurnStart, KindApproval}, KindApproval, StateApproval, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr Tracker
			for i, k := range tt.before {
				tr.Apply(Event{Kind: k, Time: int64(i + 1)})
			}
			p, changed := tr.Observe(tt.observe)
			if p.State != tt.want || changed != tt.wantChanged {
				t.Errorf("Observe = %v, %v; want %v, %v", p.State, changed, tt.want, tt.wantChanged)
			}
		})
	}
}

// TestTrackerObserveLeavesLaterHooksTheirSay: a record seen after a hook
// that came later (a new prompt right after a rejection) does not make
// that hook's event look old, and late tool events of the cut turn do not
// bring it back.
func TestTrackerObserveLeavesLaterHooksTheirSay(t *testing.T) {
	var tr Tracker
	tr.Apply(Event{Kind: KindTurnStart, Time: 1})
	tr.Apply(Event{Kind: KindApproval, Time: 2})
	if p, _ := tr.Observe(KindTurnEnd); p.State != StateIdle {
		t.Fatalf("after the rejection: %v, want idle", p.State)
	}
	if p, _ := tr.Apply(Event{Kind: KindApproval, Time: 3}); p.State != StateIdle {
		t.Errorf("a late permission of the cut turn: %v, want idle", p.State)
	}
	if p, _ := tr.Apply(Event{Kind: KindTurnStart, Time: 3}); p.State != StateWorking {
		t.Errorf("the next prompt: %v, want working", p.State)
	}
}
