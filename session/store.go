package session

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Store is a [Source] that a chat service feeds with events. The zero value is
// an empty store, ready to use; a Store must not be copied after first use.
//
// Every method is safe for concurrent use. Publishing methods take a short
// lock, update the snapshot and, only when it changed, call each subscriber's
// notify function on the caller's goroutine after the lock is released. They
// never wait for a subscriber, and in steady state (no new prompt ids) they
// do not allocate. There is nothing to shut down: a Store no longer fed
// simply stops changing.
type Store struct {
	mu      sync.Mutex
	snap    Snapshot              // Phase derived from running and phase
	running bool                  // between AgentStart and AgentSettled
	phase   Phase                 // the last SetPhase
	prompts map[string]PromptKind // the open prompts by id
	// subagents are the running subagents, in the order they started, at
	// most maxTracked.
	subagents []Subagent

	subMu sync.Mutex                    // serialises changes to subs
	subs  atomic.Pointer[[]*subscriber] // copy-on-write; read without a lock on publish
}

type subscriber struct {
	notify func()
	live   atomic.Bool
}

// NewStore returns an empty store. It is the same as new(Store).
func NewStore() *Store { return new(Store) }

// Snapshot returns the current snapshot.
func (s *Store) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap
}

// Subscribe registers notify to be called after every change. notify must not
// block. Cancel is idempotent. Publishing never waits for cancel, so a call
// that a concurrent publisher had already decided to make may still start
// just after cancel returns, once; no later change calls notify.
func (s *Store) Subscribe(notify func()) (cancel func()) {
	if notify == nil {
		panic("session: Subscribe with nil notify")
	}
	sub := &subscriber{notify: notify}
	sub.live.Store(true)
	s.subMu.Lock()
	old := s.subs.Load()
	var next []*subscriber
	if old != nil {
		next = append(next, *old...)
	}
	next = append(next, sub)
	s.subs.Store(&next)
	s.subMu.Unlock()
	return func() {
		if !sub.live.Swap(false) {
			return
		}
		s.subMu.Lock()
		defer s.subMu.Unlock()
		cur := s.subs.Load()
		if cur == nil {
			return
		}
		next := make([]*subscriber, 0, len(*cur))
		for _, x := range *cur {
			if x != sub {
				next = append(next, x)
			}
		}
		s.subs.Store(&next)
	}
}

// update applies f to the store under the lock and notifies subscribers if
// the snapshot changed.
func (s *Store) update(f func()) {
	s.mu.Lock()
	before := s.snap
	f()
	s.snap.Phase = s.phase
	if s.running {
		s.snap.Phase = PhaseWorking
	}
	changed := s.snap != before
	s.mu.Unlock()
	if changed {
		s.notify()
	}
}

func (s *Store) notify() {
	subs := s.subs.Load()
	if subs == nil {
		return
	}
	for _, sub := range *subs {
		if sub.live.Load() {
			sub.notify()
		}
	}
}

// AgentStart records that the agent started a turn: the snapshot's phase is
// [PhaseWorking] until AgentSettled.
func (s *Store) AgentStart() { s.update(func() { s.running = true }) }

// AgentSettled records that the agent settled: its turn is over and nothing
// it started is still running. This, not the end of the model's answer, is
// the idle boundary. The snapshot's phase becomes the last one SetPhase
// recorded ([PhaseIdle] for a host that never calls it).
func (s *Store) AgentSettled() { s.update(func() { s.running = false }) }

// SetPhase records the activity phase, for hosts that speak in phases
// (awaiting, thinking, streaming and tool execution are all [PhaseWorking]).
// While the agent runs (AgentStart without AgentSettled) the snapshot's
// phase stays [PhaseWorking] whatever ph is. A value other than the Phase
// constants counts as [PhaseIdle].
func (s *Store) SetPhase(ph Phase) {
	if ph > PhaseError {
		ph = PhaseIdle
	}
	s.update(func() { s.phase = ph })
}

// SetTasks records the number of running background tasks; a negative n
// counts as zero.
func (s *Store) SetTasks(n int) { s.update(func() { s.snap.Tasks = max(n, 0) }) }

// SetIdentity records the session identity. Only the root session's identity
// belongs here: a child session never replaces its parent's.
func (s *Store) SetIdentity(id Identity) { s.update(func() { s.snap.Identity = id }) }

// PromptStart records that a UI prompt with this id opened. Opening an id
// that is already open changes its kind. kind must be [PromptApproval] or
// [PromptInput]: any other value (the zero PromptKind included) is a
// programming error, and PromptStart panics rather than leave the pane
// unblocked while the person is being asked something.
func (s *Store) PromptStart(id string, kind PromptKind) {
	if kind != PromptApproval && kind != PromptInput {
		panic(fmt.Sprintf("session: PromptStart(%q, %d): invalid prompt kind; use PromptApproval or PromptInput", id, kind))
	}
	s.mu.Lock()
	before := s.snap
	if s.prompts == nil {
		s.prompts = make(map[string]PromptKind)
	}
	if old, ok := s.prompts[id]; ok {
		addPrompt(&s.snap.Prompts, old, -1)
	}
	s.prompts[id] = kind
	addPrompt(&s.snap.Prompts, kind, 1)
	changed := s.snap != before
	s.mu.Unlock()
	if changed {
		s.notify()
	}
}

// PromptEnd records that the UI prompt with this id closed. An unknown id is
// ignored.
func (s *Store) PromptEnd(id string) {
	s.mu.Lock()
	kind, ok := s.prompts[id]
	if !ok {
		s.mu.Unlock()
		return
	}
	delete(s.prompts, id)
	addPrompt(&s.snap.Prompts, kind, -1)
	s.mu.Unlock()
	s.notify()
}

func addPrompt(p *Prompts, k PromptKind, n int) {
	if k == PromptApproval {
		p.Approval += n
	} else {
		p.Input += n
	}
}

// SetWorkflows replaces what the workflow observation stream says. A host
// that observes root workflows sets, for each unfinished root, the flag of
// its status, and NeedsAttention for one that asked for attention; while
// the stream is unavailable or recovering it sets Unknown as well, with the
// flags of the roots it still knows.
func (s *Store) SetWorkflows(w Workflows) { s.update(func() { s.snap.Workflows = w }) }
