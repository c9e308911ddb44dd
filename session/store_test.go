package session

import (
	"encoding"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStoreEvents(t *testing.T) {
	tests := []struct {
		name   string
		events func(s *Store)
		want   Snapshot
	}{
		{"zero", func(*Store) {}, Snapshot{}},
		{"agent start", func(s *Store) { s.AgentStart() }, Snapshot{AgentRunning: true}},
		{"agent settled", func(s *Store) { s.AgentStart(); s.AgentSettled() }, Snapshot{}},
		{"phase", func(s *Store) { s.SetPhase(PhaseStreaming) }, Snapshot{Phase: PhaseStreaming}},
		{"prompts by kind", func(s *Store) {
			s.PromptStart("a", PromptApproval)
			s.PromptStart("q", PromptQuestion)
			s.PromptStart("s", PromptSecret)
			s.PromptStart("m", PromptMenu)
		}, Snapshot{Prompts: Prompts{Approval: 1, Question: 1, Secret: 1, Menu: 1}}},
		{"prompt end", func(s *Store) {
			s.PromptStart("a", PromptApproval)
			s.PromptStart("b", PromptApproval)
			s.PromptEnd("a")
		}, Snapshot{Prompts: Prompts{Approval: 1}}},
		{"reopened id changes kind", func(s *Store) {
			s.PromptStart("a", PromptApproval)
			s.PromptStart("a", PromptQuestion)
		}, Snapshot{Prompts: Prompts{Question: 1}}},
		{"unknown prompt end ignored", func(s *Store) { s.PromptEnd("nope") }, Snapshot{}},
		{"negative tasks", func(s *Store) { s.SetTasks(-3) }, Snapshot{}},
		{"tasks", func(s *Store) { s.SetTasks(2) }, Snapshot{Tasks: 2}},
		{"identity", func(s *Store) { s.SetIdentity(Identity{ID: "i", Path: "/p"}) }, Snapshot{Identity: Identity{ID: "i", Path: "/p"}}},
		{"workflows", func(s *Store) {
			s.SetWorkflows(AvailabilityReady, []Root{
				{ID: "a", Status: WorkflowExecuting, NeedsAttention: true},
				{ID: "b", Status: WorkflowPaused},
				{ID: "c", Status: WorkflowFinished, NeedsAttention: true}, // finished: attention ignored
				{ID: "d", Status: 0},                                      // invalid: ignored
				{ID: "e", Status: WorkflowManualIntervention},
			})
		}, Snapshot{Workflows: Workflows{Availability: AvailabilityReady, Executing: 1, Paused: 1, Finished: 1,
			ManualIntervention: 1, NeedsAttention: 1}}},
		{"duplicate root ids count once, last wins", func(s *Store) {
			s.SetWorkflows(AvailabilityRecovering, []Root{{ID: "a", Status: WorkflowExecuting}, {ID: "a", Status: WorkflowPaused}})
		}, Snapshot{Workflows: Workflows{Availability: AvailabilityRecovering, Paused: 1}}},
		{"workflows replaced", func(s *Store) {
			s.SetWorkflows(AvailabilityReady, []Root{{ID: "a", Status: WorkflowExecuting}})
			s.SetWorkflows(AvailabilityReady, nil)
		}, Snapshot{Workflows: Workflows{Availability: AvailabilityReady}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Store // the zero value is ready to use
			tt.events(&s)
			if diff := cmp.Diff(s.Snapshot(), tt.want); diff != "" {
				t.Errorf("snapshot (-got +want):\n%s", diff)
			}
		})
	}
}

func TestNotifyOnlyOnChange(t *testing.T) {
	s := NewStore()
	var n atomic.Int32
	cancel := s.Subscribe(func() { n.Add(1) })
	s.AgentStart()
	s.AgentStart() // no change
	s.SetTasks(0)  // no change
	s.PromptEnd("unknown")
	s.PromptStart("p", PromptMenu)
	s.PromptEnd("p")
	if got := n.Load(); got != 3 {
		t.Errorf("notified %d times, want 3", got)
	}
	cancel()
	cancel() // idempotent
	s.AgentSettled()
	if got := n.Load(); got != 3 {
		t.Errorf("notified after cancel: %d", got)
	}
}

func TestSubscribersAreIndependent(t *testing.T) {
	s := NewStore()
	var a, b atomic.Int32
	cancelA := s.Subscribe(func() { a.Add(1) })
	defer s.Subscribe(func() { b.Add(1) })()
	s.AgentStart()
	cancelA()
	s.AgentSettled()
	if a.Load() != 1 || b.Load() != 2 {
		t.Errorf("a=%d b=%d, want 1 and 2", a.Load(), b.Load())
	}
}

func TestSubscribeNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Subscribe(nil) did not panic")
		}
	}()
	NewStore().Subscribe(nil)
}

func TestConcurrentPublishers(t *testing.T) {
	s := NewStore()
	var notified atomic.Int64
	defer s.Subscribe(func() { notified.Add(1); _ = s.Snapshot() })()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				id := string(rune('a' + g))
				s.PromptStart(id, PromptApproval)
				s.SetTasks(i % 3)
				s.PromptEnd(id)
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			cancel := s.Subscribe(func() {})
			cancel()
		}
	})
	wg.Wait()
	if got := s.Snapshot().Prompts; got != (Prompts{}) {
		t.Errorf("prompts left open: %+v", got)
	}
	if notified.Load() == 0 {
		t.Error("never notified")
	}
}

func TestPublishDoesNotAllocate(t *testing.T) {
	s := NewStore()
	defer s.Subscribe(func() {})()
	s.PromptStart("p", PromptApproval) // the prompt map exists from here on
	s.PromptEnd("p")
	allocs := testing.AllocsPerRun(1000, func() {
		s.AgentStart()
		s.SetPhase(PhaseToolExecution)
		s.PromptStart("p", PromptApproval)
		s.PromptEnd("p")
		s.SetTasks(1)
		s.AgentSettled()
		s.SetPhase(PhaseIdle)
		s.SetTasks(0)
	})
	if allocs != 0 {
		t.Errorf("publishing allocated %v times per run, want 0", allocs)
	}
}

// unmarshalText parses text into a fresh T.
func unmarshalText[T any, P interface {
	*T
	encoding.TextUnmarshaler
}](text string) (T, error) {
	var v T
	err := P(&v).UnmarshalText([]byte(text))
	return v, err
}

func TestUnmarshalTextReadsEveryName(t *testing.T) {
	for k := PromptApproval; k <= PromptMenu; k++ {
		if got, err := unmarshalText[PromptKind](k.String()); err != nil || got != k {
			t.Errorf("PromptKind.UnmarshalText(%q) = %v, %v", k, got, err)
		}
	}
	for a := AvailabilityNone; a <= AvailabilityRecovering; a++ {
		if got, err := unmarshalText[Availability](a.String()); err != nil || got != a {
			t.Errorf("Availability.UnmarshalText(%q) = %v, %v", a, got, err)
		}
	}
	for st := WorkflowExecuting; st <= WorkflowFinished; st++ {
		if got, err := unmarshalText[WorkflowStatus](st.String()); err != nil || got != st {
			t.Errorf("WorkflowStatus.UnmarshalText(%q) = %v, %v", st, got, err)
		}
	}
	for p := PhaseNone; p <= PhaseError; p++ {
		if got, err := unmarshalText[Phase](p.String()); err != nil || got != p {
			t.Errorf("Phase.UnmarshalText(%q) = %v, %v", p, got, err)
		}
	}
	for _, s := range []string{"failed", "cancelled", "finished"} {
		if got, _ := unmarshalText[WorkflowStatus](s); got != WorkflowFinished {
			t.Errorf("WorkflowStatus.UnmarshalText(%q) = %v, want finished", s, got)
		}
	}
	if a, err := unmarshalText[Availability](""); err != nil || a != AvailabilityNone {
		t.Errorf(`Availability.UnmarshalText("") = %v, %v`, a, err)
	}
	for _, bad := range []func() error{
		func() error { _, err := unmarshalText[PromptKind]("APPROVAL"); return err },
		func() error { _, err := unmarshalText[Availability]("up"); return err },
		func() error { _, err := unmarshalText[WorkflowStatus](""); return err },
		func() error { _, err := unmarshalText[Phase]("working"); return err },
	} {
		if bad() == nil {
			t.Error("a bad name parsed")
		}
	}
	if PromptKind(9).String() != "PromptKind(9)" || Phase(99).String() != "Phase(99)" {
		t.Error("out-of-range String")
	}
}

func TestKnownAndActive(t *testing.T) {
	if !AvailabilityNone.Known() || !AvailabilityReady.Known() || AvailabilityUnavailable.Known() || AvailabilityRecovering.Known() {
		t.Error("Known")
	}
	if PhaseIdle.Active() || !PhaseThinking.Active() || PhaseNone.Active() {
		t.Error("Active")
	}
}

// BenchmarkPublish measures one state change published to one subscriber
// (the registry's subscriber does a non-blocking channel send).
func BenchmarkPublish(b *testing.B) {
	s := NewStore()
	kick := make(chan struct{}, 1)
	defer s.Subscribe(func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	})()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i&1 == 0 {
			s.AgentStart()
		} else {
			s.AgentSettled()
		}
	}
}

func TestPromptStartPanicsOnAnInvalidKindNamingTheFix(t *testing.T) {
	for _, kind := range []PromptKind{0, PromptMenu + 1, 99} {
		t.Run(kind.String(), func(t *testing.T) {
			s := NewStore()
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, "invalid prompt kind") || !strings.Contains(msg, "PromptApproval") {
					t.Fatalf("recovered %q, want a panic naming the valid kinds", msg)
				}
				if got := s.Snapshot(); got != (Snapshot{}) {
					t.Errorf("snapshot changed to %+v", got)
				}
			}()
			s.PromptStart("x", kind)
		})
	}
}
