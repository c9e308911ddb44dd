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

// maxSubagentTimes bounds the subagents a [Subagents] remembers: those
// running and those that ended, the oldest ended forgotten first.
const maxSubagentTimes = 512

// Subagents orders each subagent's events by its own: the hooks of two
// subagents run at once and reach the bridge in either order, so the
// parent's order (an event older than the newest applied changes nothing)
// would drop one subagent's SubagentStop that arrived after another's
// later tool event, and the dropped subagent would keep the pane working
// until the session ends. An event of a subagent is shown unless an event
// of the same subagent newer than it was; a SubagentStop is remembered
// (bounded), so a SubagentStart that arrives after its own Stop does not
// start it again. The zero value is ready; it is not safe for concurrent
// use.
type Subagents struct {
	since int64 // Event.Time of the session's start: older events are another session's
	last  map[string]subagentSeen
	ended []string // ids that ended, oldest first, for forgetting
}

type subagentSeen struct {
	time  int64 // Event.Time of the subagent's newest event shown
	ended bool
}

// Show reports whether e, an event with e.Sub set, is to be shown for its
// subagent, and remembers it. A SubagentStop that names no subagent is
// always shown: it ends the one that started first.
func (s *Subagents) Show(e Event) bool {
	if e.Sub == SubNone || e.Time < s.since {
		return false
	}
	if e.Subagent == "" {
		return true
	}
	seen, known := s.last[e.Subagent]
	if known && (seen.ended || e.Time < seen.time) {
		return false
	}
	if !known {
		for len(s.last) >= maxSubagentTimes && len(s.ended) > 0 {
			delete(s.last, s.ended[0])
			s.ended = s.ended[1:]
		}
		if len(s.last) >= maxSubagentTimes {
			return true // shown, not remembered: memory is not the agent's to grow
		}
		if s.last == nil {
			s.last = map[string]subagentSeen{}
		}
	}
	ended := e.Sub == SubStop
	s.last[e.Subagent] = subagentSeen{time: e.Time, ended: ended}
	if ended {
		s.ended = append(s.ended, e.Subagent)
	}
	return true
}

// Reset forgets every subagent: the session started, was cleared or
// ended at time at (an Event.Time), and took its subagents with it; their
// events from before then are no longer shown.
func (s *Subagents) Reset(at int64) { *s = Subagents{since: at} }
