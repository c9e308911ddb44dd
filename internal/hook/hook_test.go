package hook

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// marker is in every private field of the fixtures: SECRET-MARKER in
// those written here and in the real ones captured here, MARK... in those
// of ../shared (MARKPROMPT3, MARKCMD1): every one holds "MARK".
const marker = "MARK"

func fixture(t *testing.T, agent Agent, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", string(agent), name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// transcriptPath is the transcript_path of a fixture.
func transcriptPath(t *testing.T, agent Agent, name string) string {
	t.Helper()
	var p struct {
		Path string `json:"transcript_path"`
	}
	if err := json.Unmarshal(fixture(t, agent, name), &p); err != nil {
		t.Fatal(err)
	}
	return p.Path
}

func TestParseMapsEachDocumentedPayload(t *testing.T) {
	tests := []struct {
		agent Agent
		name  string
		want  Kind
	}{
		{ClaudeCode, "SessionStart", KindSessionStart},
		{ClaudeCode, "SessionStart-compact", KindSessionIdentity},
		{ClaudeCode, "UserPromptSubmit", KindTurnStart},
		{ClaudeCode, "PreToolUse", KindActivity},
		{ClaudeCode, "PermissionRequest", KindApproval},
		{ClaudeCode, "PostToolUse", KindActivity},
		{ClaudeCode, "Notification-permission_prompt", KindApproval},
		{ClaudeCode, "Notification-idle_prompt", KindIdlePrompt},
		{ClaudeCode, "Notification-elicitation_dialog", KindQuestion},
		{ClaudeCode, "Notification-auth_success", KindIgnore},
		{ClaudeCode, "Stop", KindTurnEnd},
		{ClaudeCode, "StopFailure", KindTurnEnd},
		{ClaudeCode, "SubagentStop", KindIgnore},
		{ClaudeCode, "PreToolUse-subagent", KindIgnore},
		{ClaudeCode, "Stop-subagent", KindIgnore},
		{ClaudeCode, "SessionEnd", KindSessionEnd},
		{ClaudeCode, "SessionEnd-clear", KindSessionClear},
		{ClaudeCode, "SessionEnd-other", KindSessionEnd},
		{ClaudeCode, "SessionStart-clear", KindSessionStart},
		{ClaudeCode, "SessionStart-resume", KindSessionStart},
		{ClaudeCode, "SessionStart-print", KindSessionStart},
		{ClaudeCode, "PostToolBatch", KindIgnore},
		{ClaudeCode, "PermissionDenied", KindIgnore},
		{ClaudeCode, "Notification-agent_needs_input", KindQuestion},
		{Codex, "SessionStart", KindSessionStart},
		{Codex, "UserPromptSubmit", KindTurnStart},
		{Codex, "PreToolUse", KindActivity},
		{Codex, "PermissionRequest", KindMaybeApproval},
		{Codex, "PostToolUse", KindActivity},
		{Codex, "Stop", KindTurnEnd},
		{Codex, "StopFailure", KindTurnEnd},
		{Codex, "SubagentStop", KindIgnore},
		{Gemini, "SessionStart", KindSessionStart},
		{Gemini, "BeforeAgent", KindTurnStart},
		{Gemini, "BeforeTool", KindActivity},
		{Gemini, "Notification", KindApproval},
		{Gemini, "AfterTool", KindActivity},
		{Gemini, "AfterAgent", KindTurnEnd},
		{Gemini, "SessionEnd", KindSessionEnd},
	}
	for _, tt := range tests {
		t.Run(string(tt.agent)+"/"+tt.name, func(t *testing.T) {
			e, err := Parse(tt.agent, fixture(t, tt.agent, tt.name))
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != tt.want {
				t.Errorf("kind = %v, want %v", e.Kind, tt.want)
			}
			if e.Session == "" {
				t.Error("session id dropped")
			}
			// Nothing private survives: the event, as it goes to the bridge,
			// but the transcript's path, which the bridge reads and never
			// passes on.
			if e.Transcript != "" && e.Transcript != transcriptPath(t, tt.agent, tt.name) {
				t.Errorf("transcript %q is not the payload's transcript_path", e.Transcript)
			}
			e.Transcript = ""
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), marker) {
				t.Errorf("event %s carries a private field", b)
			}
		})
	}
}

func TestParseRefusesWithoutEchoingThePayload(t *testing.T) {
	tests := []struct {
		name, payload string
	}{
		{"not JSON", "SECRET-MARKER {"},
		{"an array", `["SECRET-MARKER"]`},
		{"no event name", `{"prompt":"SECRET-MARKER"}`},
		{"a wrongly typed field", `{"hook_event_name":"Stop","session_id":["SECRET-MARKER"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(ClaudeCode, []byte(tt.payload))
			if !errors.Is(err, ErrPayload) {
				t.Fatalf("err = %v, want ErrPayload", err)
			}
			if strings.Contains(err.Error(), marker) {
				t.Errorf("error %q echoes the payload", err)
			}
		})
	}
}

// TestParseForwardsNothingOfTheFieldsItReads: the fields Parse reads to
// tell the event (its name, agent_id, source, reason, notification_type)
// decide the kind and are never forwarded, whatever they hold.
func TestParseForwardsNothingOfTheFieldsItReads(t *testing.T) {
	fields := []string{"hook_event_name", "agent_id", "source", "reason", "notification_type"}
	for _, agent := range Agents {
		for _, field := range fields {
			t.Run(string(agent)+"/"+field, func(t *testing.T) {
				p := map[string]string{"hook_event_name": "SessionEnd", "session_id": "abc-123", field: "x " + marker + " \x1b]0;t\x07"}
				b, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				e, err := Parse(agent, b)
				if err != nil {
					t.Fatal(err)
				}
				out, err := json.Marshal(e)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(out), marker) {
					t.Errorf("event %s carries %s", out, field)
				}
			})
		}
	}
}

func TestParseDropsASessionIDThatIsNotOne(t *testing.T) {
	for _, id := range []string{"../../etc/passwd", "a b", "x\x1b]0;t\x07", strings.Repeat("a", 129)} {
		b, _ := json.Marshal(map[string]string{"hook_event_name": "Stop", "session_id": id})
		e, err := Parse(ClaudeCode, b)
		if err != nil {
			t.Fatal(err)
		}
		if e.Session != "" {
			t.Errorf("session %q kept", e.Session)
		}
	}
}

func TestParseAgent(t *testing.T) {
	for _, a := range Agents {
		if got, err := ParseAgent(string(a)); err != nil || got != a {
			t.Errorf("ParseAgent(%q) = %q, %v", a, got, err)
		}
	}
	if _, err := ParseAgent("claude"); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("ParseAgent(claude) = %v, want ErrUnknownAgent", err)
	}
}

func TestKindTextRoundTrips(t *testing.T) {
	for k := range kindCount {
		b, err := k.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var got Kind
		if err := got.UnmarshalText(b); err != nil || got != k {
			t.Errorf("%v: got %v, %v", k, got, err)
		}
	}
	if _, err := kindCount.MarshalText(); err == nil {
		t.Error("an unknown kind marshals")
	}
}

// step is one event of a tracker scenario and the state after it.
type step struct {
	kind Kind
	time int64 // 0: one more than the previous step
	want State
}

func TestTrackerFollowsTheTurn(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"a whole turn with an approval", []step{
			{kind: KindSessionStart, want: StateIdle},
			{kind: KindTurnStart, want: StateWorking},
			{kind: KindActivity, want: StateWorking},
			{kind: KindApproval, want: StateApproval},
			{kind: KindActivity, want: StateWorking},
			{kind: KindTurnEnd, want: StateIdle},
		}},
		{"recaps after the turn do not bring it back", []step{
			{kind: KindTurnStart, want: StateWorking},
			{kind: KindTurnEnd, want: StateIdle},
			{kind: KindActivity, want: StateIdle},
			{kind: KindApproval, want: StateIdle},
			{kind: KindQuestion, want: StateIdle},
			{kind: KindIgnore, want: StateIdle},
		}},
		{"a rejected permission is cleared by idle_prompt", []step{
			{kind: KindTurnStart, want: StateWorking},
			{kind: KindApproval, want: StateApproval},
			// rejected: no hook fires, then about 60 s later:
			{kind: KindIdlePrompt, want: StateIdle},
		}},
		{"a rejected permission is cleared by the next prompt", []step{
			{kind: KindTurnStart, want: StateWorking},
			{kind: KindApproval, want: StateApproval},
			{kind: KindTurnStart, want: StateWorking},
		}},
		{"a bridge started mid-turn follows tool events", []step{
			{kind: KindActivity, want: StateWorking},
			{kind: KindApproval, want: StateApproval},
		}},
		{"an elicitation is a question", []step{
			{kind: KindTurnStart, want: StateWorking},
			{kind: KindQuestion, want: StateQuestion},
			{kind: KindActivity, want: StateWorking},
		}},
		{"a compaction keeps the state", []step{
			{kind: KindTurnStart, want: StateWorking},
			{kind: KindSessionIdentity, want: StateWorking},
		}},
		{"an older event is dropped", []step{
			{kind: KindTurnStart, time: 10, want: StateWorking},
			{kind: KindTurnEnd, time: 20, want: StateIdle},
			{kind: KindActivity, time: 15, want: StateIdle},
			{kind: KindTurnStart, time: 15, want: StateIdle},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr Tracker
			var now int64
			var got, want []State
			for _, s := range tt.steps {
				now++
				if s.time != 0 {
					now = s.time
				}
				p, _ := tr.Apply(Event{Kind: s.kind, Time: now, Session: "s1"})
				got = append(got, p.State)
				want = append(want, s.want)
			}
			if diff := cmp.Diff(got, want); diff != "" {
				t.Errorf("states (-got +want):\n%s", diff)
			}
		})
	}
}

func TestTrackerMaybeApprovalBlocksOnlyWhenNothingFollows(t *testing.T) {
	var tr Tracker
	tr.Apply(Event{Kind: KindTurnStart, Time: 1})
	p, token := tr.Apply(Event{Kind: KindMaybeApproval, Time: 2})
	if token == 0 || p.State != StateWorking {
		t.Fatalf("maybe-approval: state %v, token %d; want working and a token", p.State, token)
	}
	// Auto-review answered: the tool ran.
	tr.Apply(Event{Kind: KindActivity, Time: 3})
	if p, changed := tr.Expire(token); changed || p.State != StateWorking {
		t.Errorf("after the tool ran, Expire = %v, %v; want working, unchanged", p.State, changed)
	}
	_, token = tr.Apply(Event{Kind: KindMaybeApproval, Time: 4})
	if p, changed := tr.Expire(token); !changed || p.State != StateApproval {
		t.Errorf("with nothing after it, Expire = %v, %v; want approval, changed", p.State, changed)
	}
	tr.Apply(Event{Kind: KindTurnEnd, Time: 5})
	if _, token := tr.Apply(Event{Kind: KindMaybeApproval, Time: 6}); token != 0 {
		t.Error("a maybe-approval after the turn waits for its grace")
	}
}

func TestTrackerSession(t *testing.T) {
	var tr Tracker
	steps := []struct {
		e    Event
		want Pane
	}{
		{Event{Kind: KindActivity, Time: 1, Session: "a"}, Pane{State: StateWorking, Session: "a"}},
		{Event{Kind: KindActivity, Time: 2, Session: "b"}, Pane{State: StateWorking, Session: "a"}},
		{Event{Kind: KindSessionClear, Time: 3, Session: "a"}, Pane{State: StateIdle}},
		{Event{Kind: KindSessionStart, Time: 4, Session: "c"}, Pane{State: StateIdle, Session: "c"}},
		{Event{Kind: KindSessionEnd, Time: 5, Session: "c"}, Pane{State: StateIdle, Session: "c", End: true}},
		{Event{Kind: KindTurnStart, Time: 6, Session: "c"}, Pane{State: StateIdle, Session: "c", End: true}},
	}
	for i, s := range steps {
		got, _ := tr.Apply(s.e)
		if diff := cmp.Diff(got, s.want); diff != "" {
			t.Errorf("step %d (%v): pane (-got +want):\n%s", i, s.e.Kind, diff)
		}
	}
}

// TestParseToleratesWhatClaudeCode2_1_328LeavesOut: the real payloads lack
// fields the documentation gives and carry new ones; each still maps.
func TestParseToleratesWhatClaudeCode2_1_328LeavesOut(t *testing.T) {
	tests := []struct {
		name    string
		missing []string
		extra   []string
		want    Kind
	}{
		{"SessionStart", []string{"permission_mode"}, nil, KindSessionStart},
		{"SessionStart-print", []string{"permission_mode", "model"}, nil, KindSessionStart},
		{"Notification-permission_prompt", []string{"permission_mode", "title"}, []string{"prompt_id"}, KindApproval},
		{"Notification-idle_prompt", []string{"permission_mode", "title"}, []string{"prompt_id"}, KindIdlePrompt},
		{"Stop", []string{"stop_reason"}, []string{"prompt_id", "effort"}, KindTurnEnd},
		{"PostToolUse", nil, []string{"prompt_id", "effort", "duration_ms"}, KindActivity},
		{"SessionEnd", []string{"permission_mode"}, []string{"prompt_id"}, KindSessionEnd},
		{"PostToolBatch", nil, []string{"tool_calls"}, KindIgnore},
		{"PermissionDenied", nil, []string{"reason"}, KindIgnore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := fixture(t, ClaudeCode, tt.name)
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(b, &fields); err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.missing {
				if _, ok := fields[f]; ok {
					t.Errorf("the fixture has %s: not the payload this test is about", f)
				}
			}
			for _, f := range tt.extra {
				if _, ok := fields[f]; !ok {
					t.Errorf("the fixture lacks %s: not the payload this test is about", f)
				}
			}
			e, err := Parse(ClaudeCode, b)
			if err != nil || e.Kind != tt.want || e.Session == "" {
				t.Errorf("Parse = %v (session %q), %v; want %v with the session", e.Kind, e.Session, err, tt.want)
			}
		})
	}
}
