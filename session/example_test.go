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

// Only an interactive root session may claim a pane; the error says why not.
func ExampleHost_Interactive() {
	h := session.Host{Mode: session.ModePrint, HasUI: false, Role: session.RoleRoot}
	fmt.Println(h.Interactive())
	// Output: not an interactive root session: mode is print, not tui; the host has no UI
}

// The command that reopens a session is an argv, never a shell line.
func ExampleNewArgv() {
	resume, err := session.NewArgv("mychat", "--resume", "abc")
	if err != nil {
		panic(err)
	}
	id := session.Identity{ID: "abc", Path: "/home/me/.mychat/sessions/abc.jsonl", Resume: resume}
	fmt.Println(id.Resume.Len(), id.Resume)
	// Output: 3 mychat --resume abc
}
