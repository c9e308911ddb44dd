package main

import (
	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/session"
)

// showSubagent publishes what event e says of a subagent, in the order
// of that subagent's own events (subs); applied says whether the tracker
// applied e, for the parent's events: a session that starts, is cleared
// or ends takes its subagents with it.
func showSubagent(store *session.Store, subs *hook.Subagents, e hook.Event, applied bool) {
	switch e.Kind {
	case hook.KindSessionStart, hook.KindSessionClear, hook.KindSessionEnd:
		if applied {
			subs.Reset(e.Time)
			store.SubagentsEnd()
		}
		return
	}
	if !subs.Show(e) {
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
