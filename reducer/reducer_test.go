package reducer_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
)

// want is a test case's expectation: nil means "no new report".
func want(st adapter.State, r adapter.Reason, m adapter.Message) *adapter.Report {
	return &adapter.Report{State: st, Reason: r, Message: m}
}

const (
	idle    = adapter.StateIdle
	working = adapter.StateWorking
	blocked = adapter.StateBlocked

	noMsg     = adapter.MessageNone
	approval  = adapter.MessageWaitingForApproval
	input     = adapter.MessageWaitingForInput
	attention = adapter.MessageWorkflowNeedsAttention
)

var reduceTests = []struct {
	name string
	snap session.Snapshot
	want *adapter.Report
}{
	// The Atomic table, one case per row.
	{
		name: "atomic/agent executing without prompt",
		snap: session.Snapshot{Phase: session.PhaseWorking},
		want: want(working, adapter.ReasonExecuting, noMsg),
	},
	{
		name: "atomic/agent executing while a workflow needs attention",
		snap: session.Snapshot{Phase: session.PhaseWorking, Workflows: session.Workflows{AwaitingInput: true}},
		want: want(working, adapter.ReasonExecuting, attention),
	},
	{
		name: "atomic/workflow executing",
		snap: session.Snapshot{Workflows: session.Workflows{Executing: true}},
		want: want(working, adapter.ReasonExecuting, noMsg),
	},
	{
		name: "atomic/workflow automatic continuation",
		snap: session.Snapshot{Workflows: session.Workflows{AutomaticContinuation: true}},
		want: want(working, adapter.ReasonAutomaticContinuation, noMsg),
	},
	{
		name: "atomic/workflow retrying",
		snap: session.Snapshot{Workflows: session.Workflows{Retrying: true}},
		want: want(working, adapter.ReasonRetrying, noMsg),
	},
	{
		name: "atomic/workflow stopping",
		snap: session.Snapshot{Workflows: session.Workflows{Stopping: true}},
		want: want(working, adapter.ReasonStopping, noMsg),
	},
	{
		name: "atomic/workflow executing while another root is blocked",
		snap: session.Snapshot{Workflows: session.Workflows{Executing: true, ManualIntervention: true}},
		want: want(working, adapter.ReasonExecuting, attention),
	},
	{
		name: "atomic/approval prompt is the only work",
		snap: session.Snapshot{Prompts: session.Prompts{Approval: 1}},
		want: want(blocked, adapter.ReasonAwaitingInput, approval),
	},
	{
		name: "atomic/agent parked on approval prompt",
		snap: session.Snapshot{Phase: session.PhaseWorking, Prompts: session.Prompts{Approval: 1}},
		want: want(blocked, adapter.ReasonAwaitingInput, approval),
	},
	{
		name: "atomic/blocked workflow awaiting input",
		snap: session.Snapshot{Workflows: session.Workflows{AwaitingInput: true}},
		want: want(blocked, adapter.ReasonAwaitingInput, attention),
	},
	{
		name: "atomic/blocked workflow manual intervention",
		snap: session.Snapshot{Workflows: session.Workflows{ManualIntervention: true}},
		want: want(blocked, adapter.ReasonManualIntervention, attention),
	},
	{
		name: "atomic/all workflows paused",
		snap: session.Snapshot{Workflows: session.Workflows{Paused: true}},
		want: want(idle, adapter.ReasonPaused, noMsg),
	},
	{
		name: "atomic/settled agent ready source no work",
		snap: session.Snapshot{},
		want: want(idle, adapter.ReasonQuiescent, noMsg),
	},
	{
		name: "atomic/source unavailable nothing known",
		snap: session.Snapshot{Workflows: session.Workflows{Unknown: true}},
		want: nil,
	},
	{
		name: "atomic/source recovering nothing known",
		snap: session.Snapshot{Workflows: session.Workflows{Unknown: true}},
		want: nil,
	},

	// The two rules below the Atomic table.
	{
		name: "atomic/workflow keeps working after agent settles",
		snap: session.Snapshot{Workflows: session.Workflows{Executing: true}},
		want: want(working, adapter.ReasonExecuting, noMsg),
	},
	{
		name: "atomic/workflow keeps working while approval waits",
		snap: session.Snapshot{Phase: session.PhaseWorking, Prompts: session.Prompts{Approval: 1}, Workflows: session.Workflows{Retrying: true}},
		want: want(working, adapter.ReasonRetrying, noMsg),
	},
	{
		name: "atomic/unavailable source with agent running",
		snap: session.Snapshot{Phase: session.PhaseWorking, Workflows: session.Workflows{Unknown: true}},
		want: want(working, adapter.ReasonExecuting, noMsg),
	},
	{
		name: "atomic/recovering source with approval open",
		snap: session.Snapshot{Prompts: session.Prompts{Approval: 1}, Workflows: session.Workflows{Unknown: true}},
		want: want(blocked, adapter.ReasonAwaitingInput, approval),
	},

	// The Jazz table, one case per row entry.
	{
		name: "jazz/pending approval",
		snap: session.Snapshot{Phase: session.PhaseWorking, Prompts: session.Prompts{Approval: 1}},
		want: want(blocked, adapter.ReasonAwaitingInput, approval),
	},
	{
		name: "jazz/active menu",
		snap: session.Snapshot{Phase: session.PhaseIdle, Prompts: session.Prompts{Input: 1}},
		want: want(blocked, adapter.ReasonAwaitingInput, input),
	},
	{
		name: "jazz/question",
		snap: session.Snapshot{Phase: session.PhaseWorking, Prompts: session.Prompts{Input: 1}},
		want: want(blocked, adapter.ReasonAwaitingInput, input),
	},
	{
		name: "jazz/secret prompt",
		snap: session.Snapshot{Phase: session.PhaseWorking, Prompts: session.Prompts{Input: 1}},
		want: want(blocked, adapter.ReasonAwaitingInput, input),
	},
	{
		name: "jazz/awaiting",
		snap: session.Snapshot{Phase: session.PhaseWorking},
		want: want(working, adapter.ReasonExecuting, noMsg),
	},
	{
		name: "jazz/thinking",
		snap: session.Snapshot{Phase: session.PhaseWorking},
		want: want(working, adapter.ReasonExecuting, noMsg),
	},
	{
		name: "jazz/streaming",
		snap: session.Snapshot{Phase: session.PhaseWorking},
		want: want(working, adapter.ReasonExecuting, noMsg),
	},
	{
		name: "jazz/tool execution",
		snap: session.Snapshot{Phase: session.PhaseWorking},
		want: want(working, adapter.ReasonExecuting, noMsg),
	},
	{
		name: "jazz/idle",
		snap: session.Snapshot{Phase: session.PhaseIdle},
		want: want(idle, adapter.ReasonQuiescent, noMsg),
	},
	{
		name: "jazz/completed",
		snap: session.Snapshot{Phase: session.PhaseCompleted},
		want: want(idle, adapter.ReasonCompleted, noMsg),
	},
	{
		name: "jazz/error",
		snap: session.Snapshot{Phase: session.PhaseError},
		want: want(idle, adapter.ReasonError, noMsg),
	},

	// Precedence and edge cases.
	{
		name: "edge/zero snapshot",
		snap: session.Snapshot{},
		want: want(idle, adapter.ReasonQuiescent, noMsg),
	},
	{
		name: "edge/negative counts are zero",
		snap: session.Snapshot{
			Prompts: session.Prompts{Approval: -1, Input: -2},
			Tasks:   -5,
		},
		want: want(idle, adapter.ReasonQuiescent, noMsg),
	},
	{
		name: "edge/execution ranks above continuation retry and stop",
		snap: session.Snapshot{Workflows: session.Workflows{Executing: true, AutomaticContinuation: true, Retrying: true, Stopping: true}},
		want: want(working, adapter.ReasonExecuting, noMsg),
	},
	{
		name: "edge/continuation ranks above retry and stop",
		snap: session.Snapshot{Workflows: session.Workflows{AutomaticContinuation: true, Retrying: true, Stopping: true}},
		want: want(working, adapter.ReasonAutomaticContinuation, noMsg),
	},
	{
		name: "edge/retry ranks above stop",
		snap: session.Snapshot{Workflows: session.Workflows{Retrying: true, Stopping: true}},
		want: want(working, adapter.ReasonRetrying, noMsg),
	},
	{
		name: "edge/approval ranks above question",
		snap: session.Snapshot{Prompts: session.Prompts{Approval: 1, Input: 1}},
		want: want(blocked, adapter.ReasonAwaitingInput, approval),
	},
	{
		name: "edge/prompt ranks above blocked workflow",
		snap: session.Snapshot{Prompts: session.Prompts{Input: 1}, Workflows: session.Workflows{ManualIntervention: true}},
		want: want(blocked, adapter.ReasonAwaitingInput, input),
	},
	{
		name: "edge/prompt ranks above background tasks",
		snap: session.Snapshot{Prompts: session.Prompts{Input: 1}, Tasks: 3},
		want: want(blocked, adapter.ReasonAwaitingInput, input),
	},
	{
		name: "edge/background tasks after agent settled",
		snap: session.Snapshot{Tasks: 2},
		want: want(working, adapter.ReasonBackgroundTasks, noMsg),
	},
	{
		name: "edge/background tasks with workflow attention",
		snap: session.Snapshot{Tasks: 1, Workflows: session.Workflows{ManualIntervention: true}},
		want: want(working, adapter.ReasonBackgroundTasks, attention),
	},
	{
		name: "edge/agent active with attention flag only",
		snap: session.Snapshot{Phase: session.PhaseWorking, Workflows: session.Workflows{Paused: true, NeedsAttention: true}},
		want: want(working, adapter.ReasonExecuting, attention),
	},
	{
		name: "edge/manual intervention ranks above awaiting input",
		snap: session.Snapshot{Workflows: session.Workflows{AwaitingInput: true, ManualIntervention: true}},
		want: want(blocked, adapter.ReasonManualIntervention, attention),
	},
	{
		name: "edge/blocked workflow known while source recovers",
		snap: session.Snapshot{Workflows: session.Workflows{Unknown: true, AwaitingInput: true}},
		want: want(blocked, adapter.ReasonAwaitingInput, attention),
	},
	{
		name: "edge/paused roots while source unavailable",
		snap: session.Snapshot{Workflows: session.Workflows{Unknown: true, Paused: true}},
		want: nil,
	},
	{
		name: "edge/completed phase while source unavailable",
		snap: session.Snapshot{Phase: session.PhaseCompleted, Workflows: session.Workflows{Unknown: true}},
		want: nil,
	},
	{
		name: "edge/paused root needing attention stays idle",
		snap: session.Snapshot{Workflows: session.Workflows{Paused: true, NeedsAttention: true}},
		want: want(idle, adapter.ReasonPaused, noMsg),
	},
	{
		name: "edge/paused ranks above completed phase",
		snap: session.Snapshot{Phase: session.PhaseCompleted, Workflows: session.Workflows{Paused: true}},
		want: want(idle, adapter.ReasonPaused, noMsg),
	},
	{
		name: "edge/no unfinished roots",
		snap: session.Snapshot{},
		want: want(idle, adapter.ReasonQuiescent, noMsg),
	},
	{
		name: "edge/attention flag without roots stays quiescent",
		snap: session.Snapshot{Workflows: session.Workflows{NeedsAttention: true}},
		want: want(idle, adapter.ReasonQuiescent, noMsg),
	},
	{
		name: "edge/out of range phase is quiescent",
		snap: session.Snapshot{Phase: session.Phase(99)},
		want: want(idle, adapter.ReasonQuiescent, noMsg),
	},
	{
		name: "edge/identity plays no part",
		snap: session.Snapshot{Identity: session.Identity{ID: "s1", Path: "/tmp/s1.jsonl"}},
		want: want(idle, adapter.ReasonQuiescent, noMsg),
	},
}

func TestReduce(t *testing.T) {
	for _, tt := range reduceTests {
		t.Run(tt.name, func(t *testing.T) {
			checkReduce(t, tt.snap, tt.want)
		})
	}
}

// checkReduce reduces s and compares the outcome with want (nil: no report).
func checkReduce(t *testing.T, s session.Snapshot, want *adapter.Report) {
	t.Helper()
	got, ok := reducer.Reduce(s)
	if want == nil {
		if ok {
			t.Fatalf("Reduce(%+v) = %v, true; want no report", s, got)
		}
		if got != (adapter.Report{}) {
			t.Errorf("Reduce(%+v) returned %v with false; want the zero Report", s, got)
		}
		return
	}
	if !ok {
		t.Fatalf("Reduce(%+v) = no report; want %v", s, *want)
	}
	if diff := cmp.Diff(got, *want); diff != "" {
		t.Errorf("Reduce(%+v) mismatch (-got +want):\n%s", s, diff)
	}
	if !got.Valid() {
		t.Errorf("Reduce(%+v) = %v, which is not Valid", s, got)
	}
}

// TestReduceFromStore drives a session.Store through a turn in the event
// vocabulary and checks the report after each event.
func TestReduceFromStore(t *testing.T) {
	st := session.NewStore()
	steps := []struct {
		name string
		do   func()
		want adapter.Report
	}{
		{"start", func() {}, adapter.Report{State: idle, Reason: adapter.ReasonQuiescent}},
		{"agent start", st.AgentStart, adapter.Report{State: working, Reason: adapter.ReasonExecuting}},
		{"approval opens", func() { st.PromptStart("p1", session.PromptApproval) }, adapter.Report{State: blocked, Reason: adapter.ReasonAwaitingInput, Message: approval}},
		{"workflow starts", func() {
			st.SetWorkflows(session.Workflows{Executing: true})
		}, adapter.Report{State: working, Reason: adapter.ReasonExecuting}},
		{"approval closes", func() { st.PromptEnd("p1") }, adapter.Report{State: working, Reason: adapter.ReasonExecuting}},
		{"agent settles", st.AgentSettled, adapter.Report{State: working, Reason: adapter.ReasonExecuting}},
		{"workflow asks", func() {
			st.SetWorkflows(session.Workflows{AwaitingInput: true, NeedsAttention: true})
		}, adapter.Report{State: blocked, Reason: adapter.ReasonAwaitingInput, Message: attention}},
		{"workflow pauses", func() {
			st.SetWorkflows(session.Workflows{Paused: true})
		}, adapter.Report{State: idle, Reason: adapter.ReasonPaused}},
		{"workflow finishes", func() {
			st.SetWorkflows(session.Workflows{})
		}, adapter.Report{State: idle, Reason: adapter.ReasonQuiescent}},
		{"a phase host says error while the agent runs", func() {
			st.AgentStart()
			st.SetPhase(session.PhaseError)
		}, adapter.Report{State: working, Reason: adapter.ReasonExecuting}},
		{"the agent settles on the error", st.AgentSettled, adapter.Report{State: idle, Reason: adapter.ReasonError}},
		{"the stream goes down", func() {
			st.SetWorkflows(session.Workflows{Unknown: true, Paused: true})
			st.SetPhase(session.PhaseWorking)
		}, adapter.Report{State: working, Reason: adapter.ReasonExecuting}},
	}
	for _, step := range steps {
		step.do()
		got, ok := reducer.Reduce(st.Snapshot())
		if !ok {
			t.Fatalf("after %s: no report; want %v", step.name, step.want)
		}
		if diff := cmp.Diff(got, step.want); diff != "" {
			t.Errorf("after %s (-got +want):\n%s", step.name, diff)
		}
	}
}

func TestReduceAllocatesNothing(t *testing.T) {
	for _, tt := range reduceTests {
		if n := testing.AllocsPerRun(100, func() { sink, sinkOK = reducer.Reduce(tt.snap) }); n != 0 {
			t.Errorf("%s: Reduce allocates %v times per call; want 0", tt.name, n)
		}
	}
}

var (
	sink   adapter.Report
	sinkOK bool
)

func BenchmarkReduce(b *testing.B) {
	cases := []struct {
		name string
		snap session.Snapshot
	}{
		{"zero", session.Snapshot{}},
		{"agent executing", session.Snapshot{Phase: session.PhaseWorking}},
		{"approval prompt", session.Snapshot{Phase: session.PhaseWorking, Prompts: session.Prompts{Approval: 1}}},
		{"workflow retrying with attention", session.Snapshot{Workflows: session.Workflows{Retrying: true, AwaitingInput: true}}},
		{"blocked workflow", session.Snapshot{Workflows: session.Workflows{ManualIntervention: true}}},
		{"paused", session.Snapshot{Workflows: session.Workflows{Paused: true}}},
		{"unavailable", session.Snapshot{Workflows: session.Workflows{Unknown: true}}},
		{"jazz completed", session.Snapshot{Phase: session.PhaseCompleted, Identity: session.Identity{ID: "c1"}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink, sinkOK = reducer.Reduce(c.snap)
			}
		})
	}
}
