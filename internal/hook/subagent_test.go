package hook

import "testing"

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
