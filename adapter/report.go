package adapter

import "fmt"

// State is what a pane shows: idle, working or blocked. The zero value is not
// a valid state.
type State uint8

// States.
const (
	StateIdle    State = iota + 1 // nothing to do; the person may type
	StateWorking                  // the agent or its workflows are at work
	StateBlocked                  // waiting for the person
)

var stateNames = [...]string{"", "idle", "working", "blocked"}

// String returns the state's wire name ("idle", "working", "blocked").
func (s State) String() string {
	if s.valid() {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// valid reports whether s is one of the three states.
func (s State) valid() bool { return s >= StateIdle && s <= StateBlocked }

// Reason is why the reducer chose a state. Reasons are internal: they show in
// logs and in Explain, and are never sent to a workspace.
type Reason uint8

// Reasons.
const (
	ReasonNone                  Reason = iota // no reason given
	ReasonExecuting                           // the agent, or a workflow, is executing
	ReasonAutomaticContinuation               // a workflow continues on its own
	ReasonRetrying                            // a workflow retries a stage
	ReasonStopping                            // a workflow drains after a stop
	ReasonBackgroundTasks                     // background tasks are running
	ReasonAwaitingInput                       // a prompt, or a workflow, waits for the person
	ReasonManualIntervention                  // a workflow needs the person to intervene
	ReasonPaused                              // every observed workflow is paused
	ReasonQuiescent                           // nothing is running and nothing waits
	ReasonCompleted                           // the turn completed (phase hosts)
	ReasonError                               // the turn ended in an error (phase hosts)
	ReasonSubagents                           // subagents are working on their own
	numReasons
)

var reasonNames = [...]string{"none", "executing", "automatic_continuation", "retrying", "stopping",
	"background_tasks", "awaiting_input", "manual_intervention", "paused", "quiescent", "completed", "error", "subagents"}

// String returns the reason's name, as logs and Explain show it.
func (r Reason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Message is one of a fixed set of texts that may accompany a report. It is a
// number, not a string, so that nothing the agent says (prompt titles, tool
// arguments, error bodies, transcripts) can ever reach a workspace.
type Message uint8

// Messages.
const (
	MessageNone                   Message = iota // no message
	MessageWaitingForApproval                    // "Waiting for approval"
	MessageWaitingForInput                       // "Waiting for input"
	MessageWorkflowNeedsAttention                // "Workflow needs attention"
	numMessages
)

var messageTexts = [...]string{"", "Waiting for approval", "Waiting for input", "Workflow needs attention"}

// String returns the message text; "" for [MessageNone] and for an invalid
// message, so an out-of-range value can never leak anything.
func (m Message) String() string {
	if m < numMessages {
		return messageTexts[m]
	}
	return ""
}

// Report is one pane state report. It is comparable: the registry drops a
// report equal to the last one delivered.
type Report struct {
	State   State   `json:"state"`
	Reason  Reason  `json:"reason"`
	Message Message `json:"message,omitempty"`
	// Children are the session's subagents, for an adapter that shows
	// them ([ChildReporter]); State, Reason and Message are the parent's
	// own, already reduced over them.
	Children Children `json:"children,omitzero"`
}

// Valid reports whether r has a valid state, reason and message, and
// every child a valid state and message.
func (r Report) Valid() bool {
	for _, c := range r.Children {
		if c.ID != "" && (!c.State.valid() || c.Message >= numMessages) {
			return false
		}
	}
	return r.State.valid() && r.Reason < numReasons && r.Message < numMessages
}

// String renders the report for logs: state, reason and the message, if any.
func (r Report) String() string {
	if m := r.Message.String(); m != "" {
		return fmt.Sprintf("%s (%s) %q", r.State, r.Reason, m)
	}
	return fmt.Sprintf("%s (%s)", r.State, r.Reason)
}

// MarshalText renders the state as its wire name, so that JSON shows
// "working" rather than a number.
func (s State) MarshalText() ([]byte, error) {
	if !s.valid() {
		return nil, fmt.Errorf("adapter: invalid state %d", uint8(s))
	}
	return []byte(stateNames[s]), nil
}

// UnmarshalText parses a name written by MarshalText.
func (s *State) UnmarshalText(text []byte) error {
	for i, n := range stateNames {
		if i > 0 && n == string(text) {
			*s = State(i)
			return nil
		}
	}
	return fmt.Errorf("adapter: unknown state %q", text)
}

// MarshalText renders the reason as its name.
func (r Reason) MarshalText() ([]byte, error) {
	if r >= numReasons {
		return nil, fmt.Errorf("adapter: invalid reason %d", uint8(r))
	}
	return []byte(reasonNames[r]), nil
}

// UnmarshalText parses a name written by MarshalText.
func (r *Reason) UnmarshalText(text []byte) error {
	for i, n := range reasonNames {
		if n == string(text) {
			*r = Reason(i)
			return nil
		}
	}
	return fmt.Errorf("adapter: unknown reason %q", text)
}

// MarshalText renders the message as its fixed text ("" for none).
func (m Message) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText parses a text written by MarshalText.
func (m *Message) UnmarshalText(text []byte) error {
	for i, t := range messageTexts {
		if t == string(text) {
			*m = Message(i)
			return nil
		}
	}
	return fmt.Errorf("adapter: unknown message %q", text)
}
