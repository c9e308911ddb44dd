package reducer

import (
	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// Reduce returns the report for s, or false when the snapshot says nothing
// new: the workflow source is unavailable or recovering and nothing that is
// still known says working or blocked. The package comment lists the rules.
//
// Reduce is pure: it depends on s alone, does not allocate, and is safe for
// concurrent use. Every report it returns with true is [adapter.Report.Valid].
func Reduce(s session.Snapshot) (adapter.Report, bool) {
	r, ok := reduceParent(&s)
	r.Children = children(&s.Subagents)
	return r, ok
}

// reduceParent is Reduce without the children: the parent's own state,
// reduced over its subagents.
func reduceParent(s *session.Snapshot) (adapter.Report, bool) {
	w := &s.Workflows
	sub := &s.Subagents
	awaiting := w.AwaitingInput
	manual := w.ManualIntervention

	attention := adapter.MessageNone
	if awaiting || manual || w.NeedsAttention {
		attention = adapter.MessageWorkflowNeedsAttention
	}

	// Rule 1: independent workflow execution.
	if reason := executionReason(w); reason != adapter.ReasonNone {
		return adapter.Report{State: adapter.StateWorking, Reason: reason, Message: attention}, true
	}

	// Rule 1b: subagents working on their own are independent execution
	// too: the pane works even while a prompt waits.
	if sub.Working > 0 {
		return adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonSubagents, Message: attention}, true
	}

	// Rule 2: an open prompt, including one the agent is parked on, or a
	// subagent's: the parent is never idle while a child waits on the
	// person.
	p := &s.Prompts
	if p.Approval > 0 || sub.Approval > 0 {
		return adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput,
			Message: adapter.MessageWaitingForApproval}, true
	}
	if p.Input > 0 || sub.Input > 0 {
		return adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput,
			Message: adapter.MessageWaitingForInput}, true
	}

	// Rule 3: the agent itself.
	if s.Phase == session.PhaseWorking {
		return adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting, Message: attention}, true
	}

	// Rule 4: background tasks.
	if s.Tasks > 0 {
		return adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonBackgroundTasks, Message: attention}, true
	}

	// Rule 5: a workflow waits for the person.
	if manual {
		return adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonManualIntervention,
			Message: adapter.MessageWorkflowNeedsAttention}, true
	}
	if awaiting {
		return adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput,
			Message: adapter.MessageWorkflowNeedsAttention}, true
	}

	// Rule 6: every idle rule below assumes the workflow roots are all there
	// is. When the source is down they may not be, so say nothing new.
	if w.Unknown {
		return adapter.Report{}, false
	}

	// Rule 7: rules 1 and 5 ruled out every other unfinished root.
	if w.Paused {
		return adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonPaused}, true
	}

	// Rule 8.
	reason := adapter.ReasonQuiescent
	switch s.Phase {
	case session.PhaseCompleted:
		reason = adapter.ReasonCompleted
	case session.PhaseError:
		reason = adapter.ReasonError
	}
	return adapter.Report{State: adapter.StateIdle, Reason: reason}, true
}

// executionReason returns the reason of the highest-ranking executing
// workflow status with a root, or ReasonNone.
// A report's children are a snapshot's listed subagents, one for one.
var (
	_ [adapter.MaxChildren - session.MaxSubagents]struct{}
	_ [session.MaxSubagents - adapter.MaxChildren]struct{}
)

// children are the listed subagents as a report's children.
func children(sub *session.Subagents) adapter.Children {
	var c adapter.Children
	for i, a := range sub.Listed {
		switch a.State {
		case session.SubagentWorking:
			c[i] = adapter.Child{ID: a.ID, State: adapter.StateWorking}
		case session.SubagentApproval:
			c[i] = adapter.Child{ID: a.ID, State: adapter.StateBlocked, Message: adapter.MessageWaitingForApproval}
		case session.SubagentInput:
			c[i] = adapter.Child{ID: a.ID, State: adapter.StateBlocked, Message: adapter.MessageWaitingForInput}
		}
	}
	return c
}

func executionReason(w *session.Workflows) adapter.Reason {
	switch {
	case w.Executing:
		return adapter.ReasonExecuting
	case w.AutomaticContinuation:
		return adapter.ReasonAutomaticContinuation
	case w.Retrying:
		return adapter.ReasonRetrying
	case w.Stopping:
		return adapter.ReasonStopping
	}
	return adapter.ReasonNone
}
