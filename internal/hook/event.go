package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Agent names a supported coding agent, as the panestate command spells it.
type Agent string

// The supported agents.
const (
	ClaudeCode Agent = "claude-code"
	Codex      Agent = "codex"
	Gemini     Agent = "gemini"
)

// Agents lists the supported agents.
var Agents = []Agent{ClaudeCode, Codex, Gemini}

// ErrUnknownAgent is wrapped by the error of ParseAgent for a name that is
// not one of Agents.
var ErrUnknownAgent = errors.New("hook: unknown agent")

// ParseAgent returns the agent named s.
func ParseAgent(s string) (Agent, error) {
	if a := Agent(s); slices.Contains(Agents, a) {
		return a, nil
	}
	return "", fmt.Errorf("%w %q (want claude-code, codex or gemini)", ErrUnknownAgent, s)
}

// Resume returns the command that resumes agent's session id, as the
// agent documents it: `claude --resume <id>`, `codex resume <id>` (Codex
// CLI's resume subcommand takes the session's id), `gemini --resume <id>`
// (Gemini CLI's --resume takes a session's id as well as an index; with
// 0.61.0, the hook payload's session_id resumed that session, and Gemini
// CLI prints the same command when it exits). It is nil for an empty id.
func Resume(agent Agent, id string) []string {
	if id == "" {
		return nil
	}
	switch agent {
	case ClaudeCode:
		return []string{"claude", "--resume", id}
	case Codex:
		return []string{"codex", "resume", id}
	case Gemini:
		return []string{"gemini", "--resume", id}
	}
	return nil
}

// Kind is what an event means for the pane.
type Kind uint8

// The kinds of event.
const (
	// KindIgnore changes nothing: a subagent's event, an event the pane has
	// no use for (a compaction, a successful login), or a malformed one.
	KindIgnore Kind = iota
	// KindSessionStart: a session started, resumed or was cleared; the agent
	// waits for a prompt.
	KindSessionStart
	// KindSessionIdentity: the session id is known, the state unchanged
	// (Claude Code's SessionStart after a compaction, which may come in the
	// middle of a turn).
	KindSessionIdentity
	// KindTurnStart: the person submitted a prompt; the agent works.
	KindTurnStart
	// KindActivity: the agent uses a tool or a model within a turn; it
	// works. Outside a turn it changes nothing.
	KindActivity
	// KindApproval: the agent waits for the person to approve a tool.
	// Outside a turn it changes nothing.
	KindApproval
	// KindMaybeApproval: an approval that the agent may answer itself
	// (Codex's auto-review): blocked only when nothing follows within the
	// grace period.
	KindMaybeApproval
	// KindQuestion: the agent asks the person something (an elicitation).
	// Outside a turn it changes nothing.
	KindQuestion
	// KindTurnEnd: the turn ended; the agent waits for a prompt.
	KindTurnEnd
	// KindIdlePrompt: the agent has been waiting for a prompt for a while
	// (Claude Code's idle_prompt, 60 s after a turn ended; 2.1.328 sends
	// none after a rejected permission): idle, whatever came before.
	KindIdlePrompt
	// KindSessionClear: the session ended to make way for a new one in the
	// same agent process (/clear): idle, identity dropped, reporting goes on.
	KindSessionClear
	// KindSessionEnd: the session ended; the pane is released.
	KindSessionEnd
	kindCount
)

var kindNames = [kindCount]string{
	"ignore", "session_start", "session_identity", "turn_start", "activity",
	"approval", "maybe_approval", "question", "turn_end", "idle_prompt",
	"session_clear", "session_end",
}

// String returns the kind's name, as JSON spells it.
func (k Kind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// MarshalText renders the kind as its name.
func (k Kind) MarshalText() ([]byte, error) {
	if k >= kindCount {
		return nil, fmt.Errorf("hook: unknown kind %d", uint8(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText parses a name written by MarshalText.
func (k *Kind) UnmarshalText(b []byte) error {
	i := slices.Index(kindNames[:], string(b))
	if i < 0 {
		return fmt.Errorf("hook: unknown kind %q", b)
	}
	*k = Kind(i)
	return nil
}

// Event is one hook event reduced to what may leave the process: its kind,
// the session id, the process of the agent that ran the hook and when the
// hook started. It is what a hook hands the bridge, as one JSON line.
type Event struct {
	Agent   Agent  `json:"agent"`
	Kind    Kind   `json:"kind"`
	Session string `json:"session,omitempty"`
	// PID is the agent's process, which the bridge watches.
	PID int `json:"pid"`
	// Time is when the hook started, in nanoseconds of the system's
	// monotonic clock (the same in every process, never set back): the
	// bridge applies events in this order, whatever order they reach it in.
	Time int64 `json:"time"`
	// Subagent is the id of the subagent the event is about, and Sub what
	// it means for it (subagent.go); "" and SubNone for the parent's own.
	Subagent string `json:"subagent,omitempty"`
	Sub      Sub    `json:"sub,omitempty"`
	// Transcript is the session's local transcript file (the
	// transcript_path of Claude Code and Gemini CLI), set for the events
	// of a turn of an agent whose transcript the bridge reads
	// ([TranscriptKind]), and Offset its size
	// when the hook ran (the caller's). They go only to the pane's bridge,
	// over its private socket, which reads the records appended after
	// Offset to see a rejected permission, after which no hook fires. The
	// path is never forwarded, stored, shown or logged.
	Transcript string `json:"transcript,omitempty"`
	Offset     int64  `json:"offset,omitempty"`
}

// maxSessionID bounds a session id that is kept.
const maxSessionID = 128

// validSessionID reports whether s looks like a session id: 1 to 128
// letters, digits, '-', '_', '.' or ':'. Anything else (a path, text,
// control characters) is dropped rather than forwarded.
func validSessionID(s string) bool {
	if s == "" || len(s) > maxSessionID {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// payload holds the only fields of a hook payload that are read. Every
// other field (prompt, tool_input, message, ...) is skipped by the decoder
// and never stored; transcript_path goes only to the bridge (see
// Event.Transcript).
type payload struct {
	Event            string `json:"hook_event_name"`
	TranscriptPath   string `json:"transcript_path"`
	SessionID        string `json:"session_id"`
	AgentID          string `json:"agent_id"`
	Source           string `json:"source"`
	Reason           string `json:"reason"`
	NotificationType string `json:"notification_type"`
}

// ErrPayload is wrapped by the errors of Parse.
var ErrPayload = errors.New("hook: bad payload")

// Parse reads one hook payload of agent and returns its event, with Agent,
// Kind and Session set (PID and Time are the caller's). A payload that is
// not a JSON object, or has no hook_event_name, is an error wrapping
// ErrPayload whose text holds nothing of the payload; an event the pane has
// no use for is KindIgnore. A session id that does not look like one is
// dropped.
func Parse(agent Agent, b []byte) (Event, error) {
	var p payload
	if err := json.Unmarshal(b, &p); err != nil {
		return Event{}, fmt.Errorf("%w: not a JSON object with the expected fields", ErrPayload)
	}
	if p.Event == "" {
		return Event{}, fmt.Errorf("%w: no hook_event_name", ErrPayload)
	}
	e := Event{Agent: agent}
	if validSessionID(p.SessionID) {
		e.Session = p.SessionID
	}
	if p.AgentID != "" || p.Event == "SubagentStop" {
		// A subagent's event: the parent's state is not the subagent's.
		return subagentEvent(agent, p, e), nil
	}
	switch agent {
	case ClaudeCode:
		e.Kind = claudeKind(p)
	case Codex:
		e.Kind = codexKind(p)
	case Gemini:
		e.Kind = geminiKind(p)
	default:
		return Event{}, fmt.Errorf("%w %q", ErrUnknownAgent, agent)
	}
	if readsTranscript(agent) && inTurn(e.Kind) && validTranscript(p.TranscriptPath) {
		e.Transcript = p.TranscriptPath
	}
	return e, nil
}

// inTurn reports whether an event of kind k comes within a turn, where a
// rejection can follow that no hook reports.
func inTurn(k Kind) bool {
	switch k {
	case KindTurnStart, KindActivity, KindApproval, KindQuestion:
		return true
	}
	return false
}

// maxTranscriptPath bounds a transcript path that is kept.
const maxTranscriptPath = 4096

// validTranscript reports whether s looks like a transcript file's path:
// absolute, at most 4096 bytes, a .jsonl file, no control characters.
func validTranscript(s string) bool {
	if len(s) > maxTranscriptPath || !strings.HasPrefix(s, "/") || !strings.HasSuffix(s, ".jsonl") {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// claudeKind maps Claude Code's events (code.claude.com/docs/en/hooks).
func claudeKind(p payload) Kind {
	switch p.Event {
	case "SessionStart":
		if p.Source == "compact" {
			// Compaction may run in the middle of a turn.
			return KindSessionIdentity
		}
		return KindSessionStart
	case "UserPromptSubmit":
		return KindTurnStart
	case "PreToolUse", "PostToolUse", "PostToolUseFailure":
		return KindActivity
	case "PostToolBatch", "PermissionDenied":
		// 2.1.328: after a batch of tool calls; and when auto mode's
		// classifier (or a rule) denied a tool, no person asked. Both come
		// after the tool's PreToolUse, within the turn it made working, so
		// they change nothing (and are not installed).
		return KindIgnore
	case "PermissionRequest":
		return KindApproval
	case "Notification":
		switch p.NotificationType {
		case "permission_prompt":
			return KindApproval
		case "elicitation_dialog":
			return KindQuestion
		case "agent_needs_input":
			// 2.1.328's auto mode when its classifier cannot be reached:
			// a dialog asks the person how to go on.
			return KindQuestion
		case "idle_prompt":
			return KindIdlePrompt
		}
	case "Stop", "StopFailure":
		return KindTurnEnd
	case "SessionEnd":
		if p.Reason == "clear" {
			return KindSessionClear
		}
		return KindSessionEnd
	}
	// SubagentStart, SubagentStop, PreCompact, auth_success, ...
	return KindIgnore
}

// codexKind maps Codex's events, as Codex 0.169.0 sends them (payloads in
// testdata/codex).
func codexKind(p payload) Kind {
	switch p.Event {
	case "SessionStart":
		// Source startup or resume; Codex 0.169.0 sends it with the first
		// prompt of a session, not when the TUI starts.
		return KindSessionStart
	case "UserPromptSubmit":
		return KindTurnStart
	case "PreToolUse", "PostToolUse":
		return KindActivity
	case "PermissionRequest":
		// Fired before Codex routes the request, also when its auto-review
		// answers it (openai/codex#28833).
		return KindMaybeApproval
	case "Stop", "Interrupt":
		// Interrupt ends a turn the person stopped, among them one whose
		// approval they rejected: no Stop follows it.
		return KindTurnEnd
	case "SessionEnd":
		// Reason other, at the end of exec and at /quit of a TUI that runs
		// the session itself; a TUI whose session runs in the app-server
		// daemon fires none at /quit.
		return KindSessionEnd
	}
	// PreModelRequest (a turn's model requests, between the events
	// above), PreCompact, PostCompact, SubagentStart, SubagentStop.
	return KindIgnore
}

// geminiKind maps Gemini CLI's events (docs/hooks/reference.md).
func geminiKind(p payload) Kind {
	switch p.Event {
	case "SessionStart":
		return KindSessionStart
	case "BeforeAgent":
		return KindTurnStart
	case "BeforeModel", "AfterModel", "BeforeToolSelection", "BeforeTool", "AfterTool":
		return KindActivity
	case "Notification":
		if p.NotificationType == "ToolPermission" {
			return KindApproval
		}
	case "AfterAgent":
		return KindTurnEnd
	case "SessionEnd":
		if p.Reason == "clear" {
			return KindSessionClear
		}
		return KindSessionEnd
	}
	return KindIgnore
}
