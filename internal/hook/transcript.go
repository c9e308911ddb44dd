package hook

import (
	"bytes"
	"encoding/json"
	"slices"
)

// readsTranscript reports whether the bridge reads agent's transcript
// ([TranscriptKind] knows its records).
func readsTranscript(agent Agent) bool { return agent == ClaudeCode }

// MaxRecord bounds a transcript record that [TranscriptKind] is given: the
// records it looks for are small (a tool result the person rejected, an
// interruption), and a longer one (a prompt snapshot, a big tool output)
// is skipped unread.
const MaxRecord = 64 << 10

// The texts Claude Code writes as a user record when a turn is cut short:
// after a rejected permission (Escape or "No" on the dialog), and after
// an Escape while it works.
var claudeInterrupts = []string{
	"[Request interrupted by user for tool use]",
	"[Request interrupted by user]",
}

// claudeRejected is the tool result Claude Code 2.1.328 writes for a tool
// use the person rejected without saying what to do instead: the turn
// ends. With their words, the result holds them and the turn goes on.
const claudeRejected = "The user doesn't want to proceed with this tool use. The tool use was rejected " +
	"(eg. if it was a file edit, the new_string was NOT written to the file). " +
	"STOP what you are doing and wait for the user to tell you how to proceed."

// TranscriptKind returns what one record (one line, without its newline)
// that agent appended to its transcript says for the pane, after the last
// hook's event. For Claude Code 2.1.328 (its transcript_path, JSON lines):
//
//   - KindTurnEnd for a user record whose tool results the person
//     rejected (toolDenialKind "user-rejected", each result Claude Code's
//     fixed rejection text), or whose one text block is "[Request
//     interrupted by user for tool use]" or "[Request interrupted by
//     user]": the turn was cut short, and no hook says so;
//   - KindActivity for a rejection with the person's words (the turn goes
//     on with them);
//   - KindIgnore for anything else: the records hooks already report, a
//     subagent's (isSidechain), a prompt the person typed (a string, not
//     blocks), and what does not decode.
//
// Nothing of the record is kept.
func TranscriptKind(agent Agent, record []byte) Kind {
	if agent != ClaudeCode || len(record) > MaxRecord || !bytes.Contains(record, []byte(`"user"`)) {
		return KindIgnore
	}
	var r struct {
		Type        string `json:"type"`
		IsSidechain bool   `json:"isSidechain"`
		DenialKind  string `json:"toolDenialKind"`
		Message     struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(record, &r) != nil || r.Type != "user" || r.IsSidechain || r.Message.Role != "user" {
		return KindIgnore
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(r.Message.Content, &blocks) != nil || len(blocks) == 0 {
		return KindIgnore
	}
	if len(blocks) == 1 && blocks[0].Type == "text" && slices.Contains(claudeInterrupts, blocks[0].Text) {
		return KindTurnEnd
	}
	if r.DenialKind != "user-rejected" {
		return KindIgnore
	}
	for _, b := range blocks {
		if b.Type != "tool_result" {
			continue
		}
		var text string
		if json.Unmarshal(b.Content, &text) != nil || text != claudeRejected {
			return KindActivity
		}
	}
	return KindTurnEnd
}
