package hook

import (
	"strconv"
	"testing"
)

// TestSubagentEvents checks what a subagent's payload (agent_id set)
// means: for the subagent, its start, work, prompts and stop; for the
// parent, nothing. The payloads carry the fields Claude Code's and Codex's
// hook documentation give subagent events; no real agent here was made to
// start a subagent.
func TestSubagentEvents(t *testing.T) {
	tests := []struct {
		agent   Agent
		payload string
		sub     Sub
		id      string
	}{
		{ClaudeCode, `{"hook_event_name":"SubagentStart","session_id":"s1","agent_id":"a1b2","agent_type":"Explore"}`, SubStart, "a1b2"},
		{ClaudeCode, `{"hook_event_name":"PreToolUse","session_id":"s1","agent_id":"a1b2","tool_name":"Bash"}`, SubWorking, "a1b2"},
		{ClaudeCode, `{"hook_event_name":"PermissionRequest","session_id":"s1","agent_id":"a1b2"}`, SubApproval, "a1b2"},
		{ClaudeCode, `{"hook_event_name":"Notification","session_id":"s1","agent_id":"a1b2","notification_type":"elicitation_dialog"}`, SubQuestion, "a1b2"},
		{ClaudeCode, `{"hook_event_name":"SubagentStop","session_id":"s1","agent_id":"a1b2","last_assistant_message":"secret"}`, SubStop, "a1b2"},
		{ClaudeCode, `{"hook_event_name":"Stop","session_id":"s1","agent_id":"a1b2"}`, SubNone, ""},
		{ClaudeCode, `{"hook_event_name":"SubagentStart","session_id":"s1","agent_id":"../../etc/passwd"}`, SubNone, ""},
		{ClaudeCode, `{"hook_event_name":"SubagentStop","session_id":"s1","last_assistant_message":"secret"}`, SubStop, ""},
		{Codex, `{"hook_event_name":"SubagentStart","session_id":"s1","turn_id":"t1","agent_id":"019a-77"}`, SubStart, "019a-77"},
		{Codex, `{"hook_event_name":"PermissionRequest","session_id":"s1","agent_id":"019a-77"}`, SubNone, ""},
		{Codex, `{"hook_event_name":"SubagentStop","session_id":"s1","agent_id":"019a-77"}`, SubStop, "019a-77"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.agent, []byte(tt.payload))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.agent, tt.payload, err)
		}
		if e.Kind != KindIgnore || e.Sub != tt.sub || e.Subagent != tt.id || e.Session != "s1" {
			t.Errorf("%s %s: kind %v, sub %v, subagent %q, session %q; want ignore, %v, %q, s1",
				tt.agent, tt.payload, e.Kind, e.Sub, e.Subagent, e.Session, tt.sub, tt.id)
		}
	}
}

// TestSubagentsShowIsBounded: a session that starts more subagents than
// Subagents remembers, none stopping, still has each event shown, and
// memory stays at the bound; ended ones are forgotten first.
func TestSubagentsShowIsBounded(t *testing.T) {
	var s Subagents
	for i := range 3 * maxSubagentTimes {
		id := "agent-" + strconv.Itoa(i)
		if !s.Show(Event{Time: int64(i + 1), Sub: SubStart, Subagent: id}) {
			t.Fatalf("start %d not shown", i)
		}
		if i%2 == 0 && !s.Show(Event{Time: int64(i + 1), Sub: SubStop, Subagent: id}) {
			t.Fatalf("stop %d not shown", i)
		}
		if len(s.last) > maxSubagentTimes {
			t.Fatalf("remembers %d subagents, bound %d", len(s.last), maxSubagentTimes)
		}
	}
	if s.Show(Event{Time: 1, Sub: SubNone, Subagent: "agent-x"}) {
		t.Error("an event that means nothing for a subagent was shown")
	}
	if !s.Show(Event{Time: 1, Sub: SubStop}) {
		t.Error("a SubagentStop without an id was not shown")
	}
}
