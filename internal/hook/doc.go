// Package hook turns the hook events of coding agents that are not Go
// programs (Claude Code, Codex, Gemini CLI) into pane states, for the
// panestate command.
//
// It has two halves, both pure: [Parse] reads one hook payload, as the agent
// writes it on the hook's stdin, and keeps only what may leave the process
// (the event's kind and the session id); a [Tracker] folds those events,
// in the order they happened, into the state the pane shows. Nothing else
// of a payload (prompts, tool inputs, messages, transcript paths) survives
// Parse, so nothing else can reach a workspace, a log or a diagnostic.
//
// The mapping handles the agents' known pitfalls: events of subagents
// (an agent_id in the payload, SubagentStart and SubagentStop) never change
// the parent's state; tool and permission events that arrive after the turn
// ended do not bring it back; a rejected permission is cleared by Codex's
// Interrupt, which Codex 0.169.0 fires for it, and where no hook fires by
// the next event the agent does send (Claude Code's idle_prompt
// notification, a new prompt); and Codex's PermissionRequest,
// which fires even when its auto-review will answer, shows blocked only when
// no other event follows within [CodexPermissionGrace].
package hook
