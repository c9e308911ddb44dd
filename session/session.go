package session

import "fmt"

// PromptKind says what an open UI prompt is waiting for.
type PromptKind uint8

// Prompt kinds. The zero value is not a valid kind.
const (
	PromptApproval PromptKind = iota + 1 // a tool or action waits for the person's approval
	PromptQuestion                       // the agent asked a question
	PromptSecret                         // the agent asked for a secret (a key, a password)
	PromptMenu                           // a menu or selection is open
)

var promptKindNames = [...]string{"", "approval", "question", "secret", "menu"}

// String returns the kind's name ("approval", "question", "secret", "menu").
func (k PromptKind) String() string {
	if int(k) < len(promptKindNames) && k != 0 {
		return promptKindNames[k]
	}
	return fmt.Sprintf("PromptKind(%d)", uint8(k))
}

// UnmarshalText parses a kind's name ("approval", "question", "secret",
// "menu").
func (k *PromptKind) UnmarshalText(text []byte) error {
	for i, n := range promptKindNames {
		if i > 0 && n == string(text) {
			*k = PromptKind(i)
			return nil
		}
	}
	return fmt.Errorf("session: unknown prompt kind %q (want approval, question, secret or menu)", text)
}

// Availability is the state of the host's workflow observation stream.
type Availability uint8

// Availabilities. The zero value, [AvailabilityNone], is for hosts that have no
// workflow stream at all; it counts as a ready stream with no workflows.
const (
	AvailabilityNone        Availability = iota // the host observes no workflows
	AvailabilityReady                           // the roots listed are all there is
	AvailabilityUnavailable                     // the stream is down: workflow activity is unknown
	AvailabilityRecovering                      // the stream is reconnecting: workflow activity is unknown
)

var availabilityNames = [...]string{"none", "ready", "unavailable", "recovering"}

// String returns the availability's name ("none", "ready", "unavailable",
// "recovering").
func (a Availability) String() string {
	if int(a) < len(availabilityNames) {
		return availabilityNames[a]
	}
	return fmt.Sprintf("Availability(%d)", uint8(a))
}

// Known reports whether the roots of a stream in this state are all there is:
// true for [AvailabilityNone] and [AvailabilityReady].
func (a Availability) Known() bool { return a == AvailabilityNone || a == AvailabilityReady }

// UnmarshalText parses an availability's name ("ready", "unavailable",
// "recovering"; "none" or "" for no stream).
func (a *Availability) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*a = AvailabilityNone
		return nil
	}
	for i, n := range availabilityNames {
		if n == string(text) {
			*a = Availability(i)
			return nil
		}
	}
	return fmt.Errorf("session: unknown workflow availability %q (want ready, unavailable or recovering)", text)
}

// WorkflowStatus is the status of one root workflow.
type WorkflowStatus uint8

// Workflow statuses. The zero value is not a valid status.
const (
	WorkflowExecuting             WorkflowStatus = iota + 1 // running a stage
	WorkflowAutomaticContinuation                           // continuing on its own between stages
	WorkflowRetrying                                        // retrying a failed stage
	WorkflowStopping                                        // draining after a stop request
	WorkflowAwaitingInput                                   // waiting for the person
	WorkflowManualIntervention                              // stuck until the person intervenes
	WorkflowPaused                                          // paused by the person
	WorkflowFinished                                        // done (completed, failed or cancelled)
)

var workflowStatusNames = [...]string{"", "executing", "automatic_continuation", "retrying", "stopping",
	"awaiting_input", "manual_intervention", "paused", "completed"}

// String returns the status's name as hosts write it; [WorkflowFinished] is
// "completed".
func (s WorkflowStatus) String() string {
	if int(s) < len(workflowStatusNames) && s != 0 {
		return workflowStatusNames[s]
	}
	return fmt.Sprintf("WorkflowStatus(%d)", uint8(s))
}

// UnmarshalText parses a status's name. "completed", "finished", "failed" and
// "cancelled" all mean [WorkflowFinished].
func (s *WorkflowStatus) UnmarshalText(text []byte) error {
	switch string(text) {
	case "finished", "failed", "cancelled", "canceled":
		*s = WorkflowFinished
		return nil
	}
	for i, n := range workflowStatusNames {
		if i > 0 && n == string(text) {
			*s = WorkflowStatus(i)
			return nil
		}
	}
	return fmt.Errorf("session: unknown workflow status %q", text)
}

// Phase is the activity phase of hosts that describe their turn in phases
// (the Jazz vocabulary). The zero value, [PhaseNone], means the host does not
// use phases.
type Phase uint8

// Phases.
const (
	PhaseNone          Phase = iota // the host reports no phase
	PhaseAwaiting                   // the request is sent, waiting for the model
	PhaseThinking                   // the model is reasoning
	PhaseStreaming                  // the model is writing its answer
	PhaseToolExecution              // a tool is running
	PhaseIdle                       // at the prompt, nothing running
	PhaseCompleted                  // the turn completed
	PhaseError                      // the turn ended in an error
)

var phaseNames = [...]string{"none", "awaiting", "thinking", "streaming", "tool_execution", "idle", "completed", "error"}

// String returns the phase's name ("none", "awaiting", "thinking",
// "streaming", "tool_execution", "idle", "completed", "error").
func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// Active reports whether the phase means the agent is at work (awaiting,
// thinking, streaming or tool execution).
func (p Phase) Active() bool { return p >= PhaseAwaiting && p <= PhaseToolExecution }

// UnmarshalText parses a phase's name, as String writes it.
func (p *Phase) UnmarshalText(text []byte) error {
	for i, n := range phaseNames {
		if n == string(text) {
			*p = Phase(i)
			return nil
		}
	}
	return fmt.Errorf("session: unknown phase %q", text)
}

// Prompts counts the open UI prompts by kind.
type Prompts struct {
	Approval int
	Question int
	Secret   int
	Menu     int
}

// Root is one root workflow as the host observes it; [Store.SetWorkflows]
// takes a list of them.
type Root struct {
	ID             string
	Status         WorkflowStatus
	NeedsAttention bool
}

// Workflows aggregates the workflow observation stream: its availability and
// how many root workflows are in each status.
type Workflows struct {
	Availability Availability

	Executing             int
	AutomaticContinuation int
	Retrying              int
	Stopping              int
	AwaitingInput         int
	ManualIntervention    int
	Paused                int
	Finished              int

	// NeedsAttention counts unfinished roots that asked for attention,
	// whatever their status.
	NeedsAttention int
}

func (w *Workflows) add(s WorkflowStatus, n int) {
	switch s {
	case WorkflowExecuting:
		w.Executing += n
	case WorkflowAutomaticContinuation:
		w.AutomaticContinuation += n
	case WorkflowRetrying:
		w.Retrying += n
	case WorkflowStopping:
		w.Stopping += n
	case WorkflowAwaitingInput:
		w.AwaitingInput += n
	case WorkflowManualIntervention:
		w.ManualIntervention += n
	case WorkflowPaused:
		w.Paused += n
	case WorkflowFinished:
		w.Finished += n
	}
}

// Snapshot is what the agent's session is doing at one moment. It is
// comparable; the zero value means "no active session".
type Snapshot struct {
	// AgentRunning is true between agent start and agent settled.
	AgentRunning bool
	// Phase is the activity phase, for hosts that speak in phases.
	Phase Phase
	// Prompts counts the open UI prompts.
	Prompts Prompts
	// Workflows aggregates the workflow observation stream.
	Workflows Workflows
	// Tasks is the number of running background tasks.
	Tasks int
	// Identity names the session.
	Identity Identity
}

// Source is anything that can be observed for snapshots: a [Store], or a chat
// service's own UI store.
//
// Snapshot returns the newest snapshot; it must be safe to call from any
// goroutine. Subscribe registers notify, to be called (with no data) after
// every change; notify must not block and may be called from any goroutine,
// including concurrently. The returned cancel function stops notifications
// and is idempotent. A publisher never waits for cancel, so one call that a
// publisher had already decided to make may still start just after cancel
// returns; notify must tolerate that (the registry's does: it only wakes a
// goroutine).
type Source interface {
	Snapshot() Snapshot
	Subscribe(notify func()) (cancel func())
}
