package session

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestStoreEvents(t *testing.T) {
	tests := []struct {
		name   string
		events func(s *Store)
		want   Snapshot
	}{
		{"zero", func(*Store) {}, Snapshot{}},
		{"agent start", func(s *Store) { s.AgentStart() }, Snapshot{Phase: PhaseWorking}},
		{"agent settled", func(s *Store) { s.AgentStart(); s.AgentSettled() }, Snapshot{}},
		{"phase", func(s *Store) { s.SetPhase(PhaseCompleted) }, Snapshot{Phase: PhaseCompleted}},
		{"a running agent outranks the phase", func(s *Store) { s.AgentStart(); s.SetPhase(PhaseError) }, Snapshot{Phase: PhaseWorking}},
		{"settled shows the last phase", func(s *Store) {
			s.AgentStart()
			s.SetPhase(PhaseError)
			s.AgentSettled()
		}, Snapshot{Phase: PhaseError}},
		{"a working phase outlives agent settled", func(s *Store) {
			s.SetPhase(PhaseWorking)
			s.AgentStart()
			s.AgentSettled()
		}, Snapshot{Phase: PhaseWorking}},
		{"an unknown phase counts as idle", func(s *Store) { s.SetPhase(PhaseWorking); s.SetPhase(99) }, Snapshot{}},
		{"prompts by kind", func(s *Store) {
			s.PromptStart("a", PromptApproval)
			s.PromptStart("q", PromptInput)
			s.PromptStart("m", PromptInput)
		}, Snapshot{Prompts: Prompts{Approval: 1, Input: 2}}},
		{"prompt end", func(s *Store) {
			s.PromptStart("a", PromptApproval)
			s.PromptStart("b", PromptApproval)
			s.PromptEnd("a")
		}, Snapshot{Prompts: Prompts{Approval: 1}}},
		{"reopened id changes kind", func(s *Store) {
			s.PromptStart("a", PromptApproval)
			s.PromptStart("a", PromptInput)
		}, Snapshot{Prompts: Prompts{Input: 1}}},
		{"unknown prompt end ignored", func(s *Store) { s.PromptEnd("nope") }, Snapshot{}},
		{"negative tasks", func(s *Store) { s.SetTasks(-3) }, Snapshot{}},
		{"tasks", func(s *Store) { s.SetTasks(2) }, Snapshot{Tasks: 2}},
		{"identity", func(s *Store) { s.SetIdentity(Identity{ID: "i", Path: "/p"}) }, Snapshot{Identity: Identity{ID: "i", Path: "/p"}}},
		{"workflows", func(s *Store) {
			s.SetWorkflows(Workflows{Executing: true, Paused: true, NeedsAttention: true})
		}, Snapshot{Workflows: Workflows{Executing: true, Paused: true, NeedsAttention: true}}},
		{"workflows replaced", func(s *Store) {
			s.SetWorkflows(Workflows{Executing: true})
			s.SetWorkflows(Workflows{Unknown: true})
		}, Snapshot{Workflows: Workflows{Unknown: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Store // the zero value is ready to use
			tt.events(&s)
			if got := s.Snapshot(); got != tt.want {
				t.Errorf("snapshot = %+v, want %+v", got, tt.want)
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
	s.PromptStart("p", PromptInput)
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
		s.SetPhase(PhaseWorking)
		s.PromptStart("p", PromptApproval)
		s.PromptEnd("p")
		s.SetTasks(1)
		s.AgentSettled()
		s.SetPhase(PhaseIdle)
		s.SetWorkflows(Workflows{Executing: true})
		s.SetWorkflows(Workflows{})
		s.SetTasks(0)
	})
	if allocs != 0 {
		t.Errorf("publishing allocated %v times per run, want 0", allocs)
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
	for _, kind := range []PromptKind{0, PromptInput + 1, 99} {
		t.Run(fmt.Sprint(kind), func(t *testing.T) {
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
