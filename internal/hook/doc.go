// Package hook turns the hook events of coding agents that are not Go
// programs (Claude Code, Codex, Gemini CLI) into pane states, for the
// panestate command.
//
// It has two halves, both pure: [Parse] reads one hook payload, as the agent
// writes it on the hook's stdin, and keeps only what may leave the process
// (the event's kind and the session id), plus, for the bridge alone, the
// session's local transcript path ([Event.Transcript]); a [Tracker] folds
// those events, in the order they happened, into the state the pane shows.
// Nothing else of a payload (prompts, tool inputs, messages) survives
// Parse, so nothing else can reach a workspace, a log or a diagnostic; the
// transcript path goes to the pane's bridge over its private socket and no
// further.
//
// The mapping handles the agents' known pitfalls: events of subagents
// (an agent_id in the payload, SubagentStart and SubagentStop) never change
// the parent's state; tool and permission events that arrive after the turn
// ended do not bring it back; a rejected permission and an interrupted
// turn, after which Claude Code fires no hook, and a tool rejected in
// Gemini CLI, after which it fires none either, are read from the records
// the agent appends to its transcript ([TranscriptKind], applied with
// [Tracker.Observe]), and Codex 0.169.0 fires Interrupt for them; and
// Codex's PermissionRequest, which fires even when its auto-review will
// answer, shows blocked only when no other event follows within
// [CodexPermissionGrace].
package hook
