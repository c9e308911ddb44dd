package hook

import (
	"encoding/json"
	"slices"
)

// recordsRejection reports whether agent writes a record of a rejected
// tool to its transcript that [Rejected] tells: only then does Parse keep
// an approval's transcript path.
func recordsRejection(agent Agent) bool {
	return agent == Gemini
}

// geminiRecord holds the only fields of a Gemini CLI transcript record
// that are read: the record's type and its tool calls' statuses. Every
// other field (the messages' text, the tools' arguments and results) is
// skipped by the decoder and never stored.
type geminiRecord struct {
	Type      string           `json:"type"`
	ToolCalls []geminiToolCall `json:"toolCalls"`
}

// geminiToolCall is a tool call of a Gemini CLI transcript record, its
// status only.
type geminiToolCall struct {
	Status string `json:"status"`
}

// Rejected reports whether record, one line of agent's transcript (a JSON
// object), says that the person rejected a tool the agent waited on,
// which ends the turn without a hook.
//
// Gemini CLI 0.61.0, when the person answers its approval dialog with
// "No" (or Escape), appends the model's message again with the tool call's
// "status" "cancelled" (and its result "[Operation Cancelled] Reason: User
// denied execution."), then an "info" record, and waits for a prompt: no
// AfterTool, AfterAgent or other hook fires. Any cancelled call ends the
// request, so a cancelled call in a "gemini" record is the rejection.
func Rejected(agent Agent, record []byte) bool {
	if agent != Gemini {
		return false
	}
	var r geminiRecord
	if json.Unmarshal(record, &r) != nil || r.Type != "gemini" {
		return false
	}
	return slices.ContainsFunc(r.ToolCalls, func(c geminiToolCall) bool { return c.Status == "cancelled" })
}
