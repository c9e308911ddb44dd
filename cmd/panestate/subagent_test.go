package main

import (
	"testing"

	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/session"
)

// TestSubagentEventsOutOfOrderLeaveNoneWorking: the hooks of two
// subagents run at once and reach the bridge in any order. Subagent A's
// SubagentStop (hook started at 30) arriving after B's PreToolUse (40)
// still ends A, and B's SubagentStart (20) arriving after B's own
// SubagentStop (50) does not start B again: once both stopped, no
// subagent keeps the pane working. A subagent's event from before the
// session started again (a late hook of the old session) is not shown.
func TestSubagentEventsOutOfOrderLeaveNoneWorking(t *testing.T) {
	store := session.NewStore()
	var subs hook.Subagents
	var tracker hook.Tracker
	ev := func(time int64, sub hook.Sub, id string) hook.Event {
		return hook.Event{Kind: hook.KindIgnore, Time: time, Sub: sub, Subagent: id}
	}
	apply := func(e hook.Event) {
		tracker.Apply(e)
		showSubagent(store, &subs, e, tracker.Last() == e.Time)
	}
	apply(hook.Event{Kind: hook.KindSessionStart, Time: 1})
	apply(ev(10, hook.SubStart, "agent-a"))
	apply(ev(40, hook.SubWorking, "agent-b")) // B's start (20) is still on its way
	if got := store.Snapshot().Subagents.Working; got != 1 {
		t.Fatalf("working subagents %d, want 1 (A; B unknown until it starts)", got)
	}
	apply(ev(30, hook.SubStop, "agent-a")) // older than B's event: still A's newest
	apply(ev(50, hook.SubStop, "agent-b"))
	apply(ev(20, hook.SubStart, "agent-b")) // B's start, after its own stop
	if got := store.Snapshot().Subagents; got.Working+got.Blocked() != 0 {
		t.Errorf("subagents after both stopped: %+v, want none", got)
	}
	apply(ev(60, hook.SubStart, "agent-c"))
	apply(ev(55, hook.SubWorking, "agent-c")) // older than C's start: changes nothing
	apply(hook.Event{Kind: hook.KindSessionStart, Time: 70})
	apply(ev(65, hook.SubStart, "agent-d")) // the old session's
	if got := store.Snapshot().Subagents; got.Working != 0 {
		t.Errorf("subagents after the session started again: %+v, want none", got)
	}
}
