package session_test

import (
	"fmt"

	"github.com/panestate/panestate/session"
)

// A chat service feeds its events into a Store; subscribers are told that
// something changed and pull the newest snapshot themselves.
func ExampleStore() {
	store := session.NewStore()
	cancel := store.Subscribe(func() {
		s := store.Snapshot()
		fmt.Printf("working=%t approvals=%d\n", s.Phase == session.PhaseWorking, s.Prompts.Approval)
	})
	defer cancel()

	store.AgentStart()
	store.PromptStart("tool-1", session.PromptApproval)
	store.PromptEnd("tool-1")
	store.AgentSettled()
	// Output:
	// working=true approvals=0
	// working=true approvals=1
	// working=true approvals=0
	// working=false approvals=0
}

// A host that observes workflows tells the store which statuses its
// unfinished roots are in, and when its stream is down.
func ExampleStore_SetWorkflows() {
	store := session.NewStore()
	store.SetWorkflows(session.Workflows{Executing: true, NeedsAttention: true})
	fmt.Printf("%+v\n", store.Snapshot().Workflows)
	store.SetWorkflows(session.Workflows{Unknown: true})
	fmt.Println(store.Snapshot().Workflows.Unknown)
	// Output:
	// {Unknown:false Executing:true AutomaticContinuation:false Retrying:false Stopping:false AwaitingInput:false ManualIntervention:false Paused:false NeedsAttention:true}
	// true
}

// The command that reopens a session is an argv, never a shell line.
func ExampleIdentity_WithResume() {
	id, err := session.Identity{ID: "abc", Path: "/home/me/.mychat/sessions/abc.jsonl"}.WithResume("mychat", "--resume", "abc")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", id.Resume())
	// Output: ["mychat" "--resume" "abc"]
}
