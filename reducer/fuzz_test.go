package reducer_test

import (
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
)

// FuzzReduce checks Reduce's promises over arbitrary snapshots: it never
// panics, every report it returns is valid, it is deterministic, the
// identity plays no part, and it withholds a report only when the workflow
// source is unavailable or recovering.
//
// Run it longer with: go test ./reducer -run '^$' -fuzz FuzzReduce -fuzztime 30s
func FuzzReduce(f *testing.F) {
	for _, tt := range reduceTests {
		s := tt.snap
		w := s.Workflows
		f.Add(uint8(s.Phase), s.Prompts.Approval, s.Prompts.Input,
			w.Unknown, w.Executing, w.AutomaticContinuation, w.Retrying, w.Stopping,
			w.AwaitingInput, w.ManualIntervention, w.Paused, w.NeedsAttention,
			s.Tasks, s.Identity.ID)
	}
	f.Fuzz(func(t *testing.T, phase uint8, approval, input int,
		unknown, executing, continuation, retrying, stopping,
		awaiting, manual, paused, attention bool,
		tasks int, id string) {
		s := session.Snapshot{
			Phase:   session.Phase(phase),
			Prompts: session.Prompts{Approval: approval, Input: input},
			Workflows: session.Workflows{
				Unknown:   unknown,
				Executing: executing, AutomaticContinuation: continuation, Retrying: retrying, Stopping: stopping,
				AwaitingInput: awaiting, ManualIntervention: manual, Paused: paused,
				NeedsAttention: attention,
			},
			Tasks:    tasks,
			Identity: session.Identity{ID: id, Path: id},
		}
		got, ok := reducer.Reduce(s)
		if ok && !got.Valid() {
			t.Fatalf("Reduce(%+v) = %v, which is not Valid", s, got)
		}
		if !ok && got != (adapter.Report{}) {
			t.Fatalf("Reduce(%+v) withheld a report but returned %v", s, got)
		}
		if !ok && !s.Workflows.Unknown {
			t.Fatalf("Reduce(%+v) withheld a report although the workflow stream is known", s)
		}
		again, againOK := reducer.Reduce(s)
		if again != got || againOK != ok {
			t.Fatalf("Reduce(%+v) is not deterministic: %v,%v then %v,%v", s, got, ok, again, againOK)
		}
		s.Identity = session.Identity{}
		if anon, anonOK := reducer.Reduce(s); anon != got || anonOK != ok {
			t.Fatalf("Reduce depends on the identity: %v,%v with it, %v,%v without", got, ok, anon, anonOK)
		}
		// A report always agrees with the obvious facts of the snapshot.
		if ok {
			promptOpen := approval > 0 || input > 0
			wfRunning := executing || continuation || retrying || stopping
			if promptOpen && !wfRunning && got.State != adapter.StateBlocked {
				t.Fatalf("Reduce(%+v) = %v; an open prompt without workflow execution must block", s, got)
			}
			if wfRunning && got.State != adapter.StateWorking {
				t.Fatalf("Reduce(%+v) = %v; workflow execution must keep the pane working", s, got)
			}
			if got.State == adapter.StateIdle && got.Message != adapter.MessageNone {
				t.Fatalf("Reduce(%+v) = %v; idle reports carry no message", s, got)
			}
		}
	})
}
