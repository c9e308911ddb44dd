package session

// Phase is what the agent is doing, as far as the pane is concerned. The
// zero value, [PhaseIdle], is also what a host that never sets a phase has.
type Phase uint8

// Phases.
const (
	PhaseIdle      Phase = iota // at the prompt, nothing running (or no phase reported)
	PhaseWorking                // awaiting the model, thinking, streaming or running a tool
	PhaseCompleted              // the turn completed
	PhaseError                  // the turn ended in an error
)

// PromptKind says what an open UI prompt is waiting for.
type PromptKind uint8

// Prompt kinds. The zero value is not a valid kind.
const (
	PromptApproval PromptKind = iota + 1 // a tool or action waits for the person's approval
	PromptInput                          // a question, a secret (a key, a password) or a menu
)

// Prompts counts the open UI prompts by kind.
type Prompts struct {
	Approval int // approval prompts
	Input    int // question, secret and menu prompts
}

// Workflows is what the host's workflow observation stream says about its
// unfinished root workflows: which statuses they are in, whether one asked
// for attention, and whether the stream knows them all. A finished root
// (completed, failed or cancelled) sets nothing. The zero value is a ready
// stream with no running workflow, which is also what a host without
// workflows has.
type Workflows struct {
	// Unknown is set while the stream is unavailable or recovering: the
	// flags below are then what is still known, not all there is, and the
	// pane keeps its last state rather than go idle.
	Unknown bool

	Executing             bool // some root is running a stage
	AutomaticContinuation bool // some root continues on its own between stages
	Retrying              bool // some root retries a failed stage
	Stopping              bool // some root drains after a stop request
	AwaitingInput         bool // some root waits for the person
	ManualIntervention    bool // some root is stuck until the person intervenes
	Paused                bool // some root was paused by the person

	// NeedsAttention is set when some unfinished root asked for the
	// person's attention, whatever its status.
	NeedsAttention bool
}

// Snapshot is what the agent's session is doing at one moment. It is
// comparable; the zero value means "no active session".
type Snapshot struct {
	// Phase is the agent's activity; see the package comment for how
	// AgentStart, AgentSettled and SetPhase combine into it.
	Phase Phase
	// Prompts counts the open UI prompts.
	Prompts Prompts
	// Workflows is what the workflow observation stream says.
	Workflows Workflows
	// Tasks is the number of running background tasks.
	Tasks int
	// Subagents are the session's running subagents ([Store.SubagentStart]).
	Subagents Subagents
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
