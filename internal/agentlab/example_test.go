package agentlab_test

import (
	"fmt"

	"github.com/panestate/panestate/internal/agentlab"
)

// A script of a turn with one tool call: the agent's first main-loop
// request gets the call, the one carrying its result gets the text, and a
// side request (no tools offered) gets the text as well.
func ExampleToolTurn() {
	script := agentlab.ToolTurn(agentlab.ToolCall{Name: "Bash", Input: map[string]any{"command": "ls"}}, "Done.")
	for _, r := range []agentlab.Request{
		{Tools: 12, Prompt: "list the files"},
		{Tools: 12, Results: []agentlab.Result{{ID: "toolu_1", Output: "a.txt"}}},
		{Tools: 0, Prompt: "a title for this conversation"},
	} {
		rep := script(r)
		if rep.Tool != nil {
			fmt.Println("tool:", rep.Tool.Name, rep.Tool.Input["command"])
			continue
		}
		fmt.Println("text:", rep.Text)
	}
	// Output:
	// tool: Bash ls
	// text: Done.
	// text: Done.
}
