package adaptertest

import (
	"slices"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
)

// TestEveryReportCoversReducer keeps everyReport honest: every report the
// reducer produces over a grid of snapshots (each count 0 or 1, every phase
// and availability) is in the list, and no two neighbours in the list are
// equal.
func TestEveryReportCoversReducer(t *testing.T) {
	seen := map[adapter.Report]bool{}
	for bits := range 1 << 13 {
		on := func(i int) int { return bits >> i & 1 }
		for phase := range session.PhaseError + 1 {
			for avail := range session.AvailabilityRecovering + 1 {
				s := session.Snapshot{
					AgentRunning: on(0) == 1,
					Phase:        phase,
					Prompts:      session.Prompts{Approval: on(1), Question: on(2)},
					Workflows: session.Workflows{
						Availability: avail,
						Executing:    on(3), AutomaticContinuation: on(4), Retrying: on(5), Stopping: on(6),
						AwaitingInput: on(7), ManualIntervention: on(8), Paused: on(9), Finished: on(10),
						NeedsAttention: on(11),
					},
					Tasks: on(12),
				}
				if r, ok := reducer.Reduce(s); ok {
					seen[r] = true
				}
			}
		}
	}
	for r := range seen {
		if !slices.Contains(everyReport, r) {
			t.Errorf("the reducer produces %v, which everyReport lacks", r)
		}
	}
	for i := 1; i < len(everyReport); i++ {
		if everyReport[i] == everyReport[i-1] {
			t.Errorf("everyReport[%d] repeats %v", i, everyReport[i])
		}
	}
}
