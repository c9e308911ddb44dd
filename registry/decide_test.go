package registry

import (
	"fmt"
	"testing"
)

// Every combination of the four facts, with the answer written out.
func TestDecide(t *testing.T) {
	type row struct {
		enabled, changed, applies bool
	}
	// For each lifecycle, the answer for (enabled, changed, applies) in the
	// order of rows.
	rows := []row{
		{false, false, false}, {false, false, true}, {false, true, false}, {false, true, true},
		{true, false, false}, {true, false, true}, {true, true, false}, {true, true, true},
	}
	const (
		N = actNothing
		K = actKeep
		O = actOpen
		R = actReopen
		S = actStop
		D = actMarkDisabled
	)
	want := map[Lifecycle][8]action{
		//                    off: same        changed   on: same     changed
		//                    !app  app        !app app  !app app     !app app
		LifecycleActive:      {S, S, S, S, K, K, R, R},
		LifecycleNotAttached: {D, D, D, D, O, O, O, O},
		LifecycleDisabled:    {D, D, D, D, O, O, O, O},
		LifecycleInactive:    {D, D, D, D, N, O, O, O},
		LifecycleOpenFailed:  {D, D, D, D, N, N, O, O},
		LifecyclePanicked:    {D, D, D, D, N, N, O, O},
		LifecycleUnreleased:  {D, D, D, D, N, N, O, O},
		LifecycleStaleOwner:  {S, S, S, S, K, K, R, R},
	}
	for _, life := range lifecycles {
		if _, ok := want[life]; !ok {
			t.Errorf("the table does not cover %s", life)
		}
	}
	for life, answers := range want {
		for i, rw := range rows {
			f := facts{life: life, enabled: rw.enabled, changed: rw.changed, applies: rw.applies}
			t.Run(fmt.Sprintf("%s/enabled=%t/changed=%t/applies=%t", life, rw.enabled, rw.changed, rw.applies), func(t *testing.T) {
				if got := decide(f); got != answers[i] {
					t.Errorf("decide(%+v) = %s, want %s", f, got, answers[i])
				}
			})
		}
	}
}
