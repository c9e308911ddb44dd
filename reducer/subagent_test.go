package reducer_test

import (
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
)

// TestSubagentsKeepTheParent checks the parent's own state over its
// subagents: a working subagent is independent execution (working, even
// after the turn and while a prompt waits); a subagent waiting on the
// person makes an otherwise idle or working parent blocked, never idle;
// the children go out as they are, the first started first.
func TestSubagentsKeepTheParent(t *testing.T) {
	store := func(f func(s *session.Store)) session.Snapshot {
		s := session.NewStore()
		f(s)
		return s.Snapshot()
	}
	tests := []struct {
		name string
		snap session.Snapshot
		want adapter.Report
	}{
		{"a subagent works after the turn", store(func(s *session.Store) { s.SubagentStart("a") }),
			adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonSubagents}},
		{"a subagent works while the parent's prompt waits", store(func(s *session.Store) {
			s.SubagentStart("a")
			s.PromptStart("p", session.PromptApproval)
		}), adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonSubagents}},
		{"a subagent waits for approval after the turn", store(func(s *session.Store) {
			s.SubagentStart("a")
			s.SubagentPrompt("a", session.PromptApproval)
		}), adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval}},
		{"a subagent asks while the parent works", store(func(s *session.Store) {
			s.AgentStart()
			s.SubagentStart("a")
			s.SubagentPrompt("a", session.PromptInput)
		}), adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForInput}},
		{"a finished subagent leaves the parent idle", store(func(s *session.Store) {
			s.SubagentStart("a")
			s.SubagentEnd("a")
		}), adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent}},
		{"an unknown subagent's prompt changes nothing", store(func(s *session.Store) { s.SubagentPrompt("zz", session.PromptApproval) }),
			adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent}},
	}
	for _, tt := range tests {
		got, ok := reducer.Reduce(tt.snap)
		got.Children = adapter.Children{}
		if !ok || got != tt.want {
			t.Errorf("%s: %v, %t; want %v", tt.name, got, ok, tt.want)
		}
	}

	snap := store(func(s *session.Store) {
		for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
			s.SubagentStart(id)
		}
		s.SubagentPrompt("j", session.PromptApproval) // not listed, still counted
		s.SubagentPrompt("b", session.PromptInput)
		s.SubagentEnd("a")
	})
	got, _ := reducer.Reduce(snap)
	if got.State != adapter.StateWorking || got.Children.Len() != adapter.MaxChildren {
		t.Fatalf("ten subagents: %v with %d children; want working with %d", got, got.Children.Len(), adapter.MaxChildren)
	}
	if c := got.Children[0]; c != (adapter.Child{ID: "b", State: adapter.StateBlocked, Message: adapter.MessageWaitingForInput}) {
		t.Errorf("first child %v; want b, blocked on input", c)
	}
	if c := got.Children[7]; c.ID != "i" {
		t.Errorf("last child %v; want i (the eighth still running)", c)
	}
	if snap.Subagents.Approval != 1 || snap.Subagents.Input != 1 || snap.Subagents.Working != 7 {
		t.Errorf("counts %+v; want 7 working, 1 approval, 1 input", snap.Subagents)
	}
}
