package hook

// Sub is what a subagent's event (one whose payload carries agent_id)
// means for that subagent. The parent's state is not the subagent's: such
// an event's Kind is always KindIgnore.
type Sub uint8

// What a subagent's event means.
const (
	SubNone     Sub = iota // nothing for the subagent
	SubStart               // it started (SubagentStart): working
	SubWorking             // it works (a tool ran, so its prompt was answered)
	SubApproval            // it waits for the person's approval
	SubQuestion            // it asks the person something
	SubStop                // it finished (SubagentStop)
)

// subagentEvent sets e's Subagent and Sub from a subagent's payload p of
// agent. An agent_id that does not look like an id is dropped, and the
// event then means nothing.
//
// A SubagentStop without an agent_id still ends a subagent, the one that
// started first (Subagent ""): every start has its stop, and a subagent
// that never ends would keep the pane working for good.
func subagentEvent(agent Agent, p payload, e Event) Event {
	if p.AgentID == "" && p.Event == "SubagentStop" {
		e.Sub = SubStop
		return e
	}
	if !validSessionID(p.AgentID) {
		return e
	}
	switch p.Event {
	case "SubagentStart":
		e.Sub = SubStart
	case "SubagentStop":
		e.Sub = SubStop
	case "PreToolUse", "PostToolUse":
		e.Sub = SubWorking
	case "PermissionRequest":
		if agent == ClaudeCode {
			e.Sub = SubApproval
		}
		// Codex may answer its own (auto-review, openai/codex#28833):
		// only the parent's waits out a grace period.
	case "Notification":
		switch p.NotificationType {
		case "permission_prompt":
			e.Sub = SubApproval
		case "elicitation_dialog":
			e.Sub = SubQuestion
		}
	}
	if e.Sub != SubNone {
		e.Subagent = p.AgentID
	}
	return e
}
