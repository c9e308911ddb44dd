package hook

import "time"

// CodexPermissionGrace is how long a Codex PermissionRequest waits before
// the pane shows blocked: Codex fires the hook before it routes the request,
// also when its auto-review answers it, and an answered request is followed
// by the tool's own events (or the turn's end) within that time.
const CodexPermissionGrace = 2 * time.Second

// State is what the pane shows.
type State uint8

// The states.
const (
	StateIdle     State = iota // waiting for a prompt
	StateWorking               // working on a turn
	StateApproval              // blocked: waiting for an approval
	StateQuestion              // blocked: waiting for an answer
)

func (s State) String() string {
	switch s {
	case StateIdle:
		return "idle"
	case StateWorking:
		return "working"
	case StateApproval:
		return "approval"
	case StateQuestion:
		return "question"
	}
	return "unknown"
}

// Pane is what a Tracker says the pane shows.
type Pane struct {
	State   State
	Session string // the session id, or ""
	// End is set once the session ended: the pane is to be released.
	End bool
}

// turn says whether the agent is in a turn, as far as the events tell.
type turn uint8

const (
	turnUnknown turn = iota // no prompt or turn end seen yet
	turnIn
	turnOut
)

// Tracker folds events into the pane's state. The zero value is a pane at
// idle with no session, whose turn is not known yet (so that a bridge
// started in the middle of a turn still follows its tool events). It is not
// safe for concurrent use.
type Tracker struct {
	pane    Pane
	turn    turn
	last    int64  // Time of the newest event applied
	pending uint64 // the token of a maybe-approval waiting for its grace, or 0
	tokens  uint64
}

// Pane returns the current state.
func (t *Tracker) Pane() Pane { return t.pane }

// Last returns the Time of the newest event applied (0 before any).
func (t *Tracker) Last() int64 { return t.last }

// Apply folds e into the state and returns the new state. An event older
// than one already applied (Event.Time) changes nothing: events reach the
// bridge over separate connections, possibly out of order. For a
// KindMaybeApproval in a turn, token is non-zero: call Expire with it after
// CodexPermissionGrace, and the pane is blocked unless another event came
// first.
func (t *Tracker) Apply(e Event) (p Pane, token uint64) {
	if t.pane.End || e.Time < t.last {
		return t.pane, 0
	}
	t.last = e.Time
	if e.Session != "" && (t.pane.Session == "" || e.Kind == KindSessionStart) {
		t.pane.Session = e.Session
	}
	inTurn := t.turn != turnOut
	switch e.Kind {
	case KindSessionStart, KindTurnEnd, KindIdlePrompt:
		t.settle(StateIdle, turnOut)
	case KindSessionClear:
		t.settle(StateIdle, turnOut)
		t.pane.Session = ""
	case KindTurnStart:
		t.settle(StateWorking, turnIn)
	case KindActivity:
		if inTurn {
			t.settle(StateWorking, t.turn)
		}
	case KindApproval:
		if inTurn {
			t.settle(StateApproval, t.turn)
		}
	case KindQuestion:
		if inTurn {
			t.settle(StateQuestion, t.turn)
		}
	case KindMaybeApproval:
		if inTurn {
			t.tokens++
			t.pending = t.tokens
			return t.pane, t.pending
		}
	case KindSessionEnd:
		t.pending = 0
		t.pane.End = true
	}
	return t.pane, 0
}

// settle sets the state and the turn, and cancels a waiting maybe-approval.
func (t *Tracker) settle(s State, tn turn) {
	t.pane.State = s
	t.turn = tn
	t.pending = 0
}

// Expire ends the grace of the maybe-approval token: when no event came
// since, the pane is blocked for an approval. It returns the state and
// whether it changed.
func (t *Tracker) Expire(token uint64) (Pane, bool) {
	if token == 0 || token != t.pending || t.pane.End {
		return t.pane, false
	}
	t.pending = 0
	changed := t.pane.State != StateApproval
	t.pane.State = StateApproval
	return t.pane, changed
}

// Observe applies what the agent's transcript says happened since the
// last event ([TranscriptKind]): KindTurnEnd (the turn was cut short: a
// rejected permission) makes a pane in a turn idle, KindActivity (a tool
// use was answered) makes a blocked one working. Other kinds change
// nothing. Unlike Apply it takes no time and moves none: the record was
// written at some point after the last hook's event, and every later
// hook's event still applies. It returns the state and whether it
// changed.
func (t *Tracker) Observe(k Kind) (Pane, bool) {
	if t.pane.End || t.turn == turnOut {
		return t.pane, false
	}
	before := t.pane.State
	switch k {
	case KindTurnEnd:
		t.settle(StateIdle, turnOut)
	case KindActivity:
		if before == StateApproval || before == StateQuestion {
			t.settle(StateWorking, t.turn)
		}
	}
	return t.pane, t.pane.State != before
}
