package session

// MaxSubagents bounds the subagents a snapshot lists by id; every
// subagent, listed or not, counts in [Subagents].Working and Blocked.
const MaxSubagents = 8

// maxTracked bounds the subagents a [Store] keeps at all: a subagent
// started past it is not tracked (its Stop may never come, and memory is
// not the agent's to grow).
const maxTracked = 256

// SubagentState is what a subagent is doing.
type SubagentState uint8

// Subagent states. The zero value is no subagent.
const (
	SubagentWorking  SubagentState = iota + 1 // working on its own
	SubagentApproval                          // blocked: waiting for the person's approval
	SubagentInput                             // blocked: waiting for the person's answer
)

// Subagent is one subagent of the session: the id the agent gave it
// (Claude Code's and Codex's agent_id) and its state.
type Subagent struct {
	ID    string
	State SubagentState
}

// Subagents are the session's subagents: the first [MaxSubagents] started
// and still running, in the order they started, and counts over all of
// them. It is comparable, as a [Snapshot] is.
type Subagents struct {
	Listed   [MaxSubagents]Subagent // unused entries are zero
	Working  int                    // subagents working
	Approval int                    // subagents waiting for an approval
	Input    int                    // subagents waiting for an answer
}

// Blocked returns the number of subagents waiting for the person.
func (s Subagents) Blocked() int { return s.Approval + s.Input }

// SubagentStart records that subagent id started, working; for a subagent
// already known it is SubagentWorking. An empty id is ignored.
func (s *Store) SubagentStart(id string) { s.setSubagent(id, SubagentWorking, true) }

// SubagentWorking records that subagent id works again (its prompt was
// answered, it used a tool). An unknown id is ignored: only a start adds a
// subagent.
func (s *Store) SubagentWorking(id string) { s.setSubagent(id, SubagentWorking, false) }

// SubagentPrompt records that subagent id waits for the person: an approval
// (kind PromptApproval) or an answer (PromptInput). An unknown id is
// ignored; an invalid kind is taken as PromptInput.
func (s *Store) SubagentPrompt(id string, kind PromptKind) {
	st := SubagentInput
	if kind == PromptApproval {
		st = SubagentApproval
	}
	s.setSubagent(id, st, false)
}

// SubagentEnd records that subagent id finished (or failed, or was
// stopped): it is no longer counted or listed. The empty id ends the one
// that started first (a stop that does not say which).
func (s *Store) SubagentEnd(id string) {
	s.update(func() {
		for i, a := range s.subagents {
			if a.ID == id || id == "" {
				s.subagents = append(s.subagents[:i], s.subagents[i+1:]...)
				break
			}
		}
		s.listSubagentsLocked()
	})
}

// SubagentsEnd forgets every subagent (the session ended or was cleared).
func (s *Store) SubagentsEnd() {
	s.update(func() {
		s.subagents = nil
		s.listSubagentsLocked()
	})
}

// setSubagent sets the state of subagent id, adding it when add is true.
func (s *Store) setSubagent(id string, st SubagentState, add bool) {
	if id == "" {
		return
	}
	s.update(func() {
		for i := range s.subagents {
			if s.subagents[i].ID == id {
				s.subagents[i].State = st
				s.listSubagentsLocked()
				return
			}
		}
		if add && len(s.subagents) < maxTracked {
			s.subagents = append(s.subagents, Subagent{ID: id, State: st})
			s.listSubagentsLocked()
		}
	})
}

// listSubagentsLocked derives the snapshot's Subagents from s.subagents.
// s.mu is held.
func (s *Store) listSubagentsLocked() {
	var l Subagents
	for i, a := range s.subagents {
		if i < MaxSubagents {
			l.Listed[i] = a
		}
		switch a.State {
		case SubagentWorking:
			l.Working++
		case SubagentApproval:
			l.Approval++
		case SubagentInput:
			l.Input++
		}
	}
	s.snap.Subagents = l
}
