package agentlab

import (
	"slices"
	"testing"
)

// checkHeadless fails unless a headless turn (`-p`, `exec`) showed idle,
// working, idle and released, where the idle at either end may be missing:
// a headless agent sends its session start, its prompt, its turn's end and
// its session's end within tens of milliseconds, and the registry merges
// changes that come within its 50 ms throttle window into the newest.
// Working and the release must always show.
func checkHeadless(t *testing.T, p *Pane) {
	t.Helper()
	got := States(p.Timeline(t))
	for _, want := range [][]string{
		{"idle", "working", "idle", "released"},
		{"working", "idle", "released"},
		{"idle", "working", "released"},
		{"working", "released"},
	} {
		if slices.Equal(got, want) {
			return
		}
	}
	t.Errorf("the pane showed %q, want idle, working, idle, released (either idle may merge into its neighbour)\ntimeline: %s", got, p.Describe(t))
}
