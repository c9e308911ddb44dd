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
		fmt.Printf("running=%t approvals=%d\n", s.AgentRunning, s.Prompts.Approval)
	})
	defer cancel()

	store.AgentStart()
	store.PromptStart("tool-1", session.PromptApproval)
	store.PromptEnd("tool-1")
	store.AgentSettled()
	// Output:
	// running=true approvals=0
	// running=true approvals=1
	// running=true approvals=0
	// running=false approvals=0
}

// A host with its own UI store plugs in through Funcs instead of Store.
func ExampleFuncs() {
	current := session.Snapshot{Phase: session.PhaseThinking}
	var src session.Source = session.Funcs{
		SnapshotFunc:  func() session.Snapshot { return current },
		SubscribeFunc: func(notify func()) func() { return func() {} },
	}
	fmt.Println(src.Snapshot().Phase)
	// Output: thinking
}
