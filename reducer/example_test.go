package reducer_test

import (
	"fmt"

	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
)

func ExampleReduce() {
	snapshots := []session.Snapshot{
		{},                   // no session
		{AgentRunning: true}, // the agent is at work
		{AgentRunning: true, Prompts: session.Prompts{Approval: 1}},                                            // parked on an approval
		{Workflows: session.Workflows{Availability: session.AvailabilityReady, Retrying: 1, AwaitingInput: 1}}, // a workflow retries, another waits
		{Workflows: session.Workflows{Availability: session.AvailabilityRecovering}},                           // nothing known
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
