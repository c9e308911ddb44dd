package reducer_test

import (
	"fmt"

	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
)

func ExampleReduce() {
	snapshots := []session.Snapshot{
		{},                            // no session
		{Phase: session.PhaseWorking}, // the agent is at work
		{Phase: session.PhaseWorking, Prompts: session.Prompts{Approval: 1}}, // parked on an approval
		{Workflows: session.Workflows{Retrying: true, AwaitingInput: true}},  // a workflow retries, another waits
		{Workflows: session.Workflows{Unknown: true}},                        // nothing known
	}
	for _, s := range snapshots {
		r, ok := reducer.Reduce(s)
		if !ok {
			fmt.Println("no new report")
			continue
		}
		fmt.Println(r)
	}
	// Output:
	// idle (quiescent)
	// working (executing)
	// blocked (awaiting_input) "Waiting for approval"
	// working (retrying) "Workflow needs attention"
	// no new report
}
