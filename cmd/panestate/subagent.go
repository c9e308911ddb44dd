package main

import (
	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/session"
)

// showSubagent publishes what event e, which the tracker applied, says of
// a subagent; a session that starts, is cleared or ends takes its
// subagents with it.
func showSubagent(store *session.Store, e hook.Event) {
	switch e.Kind {
	case hook.KindSessionStart, hook.KindSessionClear, hook.KindSessionEnd:
		store.SubagentsEnd()
		return
	}
	switch e.Sub {
	case hook.SubStart:
		store.SubagentStart(e.Subagent)
	case hook.SubWorking:
		store.SubagentWorking(e.Subagent)
	case hook.SubApproval:
		store.SubagentPrompt(e.Subagent, session.PromptApproval)
	case hook.SubQuestion:
		store.SubagentPrompt(e.Subagent, session.PromptInput)
	case hook.SubStop:
		store.SubagentEnd(e.Subagent)
	}
}
