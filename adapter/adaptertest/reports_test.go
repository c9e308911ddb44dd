package adaptertest

import (
	"slices"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
)

// TestEveryReportCoversReducer keeps everyReport honest: every report the
// reducer produces over a grid of snapshots (each count 0 or 1, each flag
// off or on, every phase) is in the list, and no two neighbours in the list are
// equal.
func TestEveryReportCoversReducer(t *testing.T) {
	seen := map[adapter.Report]bool{}
	for bits := range 1 << 12 {
		on := func(i int) bool { return bits>>i&1 == 1 }
		count := func(i int) int { return bits >> i & 1 }
		for phase := range session.PhaseError + 1 {
			s := session.Snapshot{
				Phase:   phase,
				Prompts: session.Prompts{Approval: count(0), Input: count(1)},
				Workflows: session.Workflows{
					Unknown:   on(2),
					Executing: on(3), AutomaticContinuation: on(4), Retrying: on(5), Stopping: on(6),
					AwaitingInput: on(7), ManualIntervention: on(8), Paused: on(9),
					NeedsAttention: on(10),
				},
				Tasks: count(11),
			}
			if r, ok := reducer.Reduce(s); ok {
				seen[r] = true
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
