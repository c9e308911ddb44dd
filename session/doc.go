// Package session is what a chat service feeds with its agent's activity:
// create a [Store] with [NewStore], call its methods as the agent works,
// and pass it to the registry's Attach. Each change yields a [Snapshot], a
// small comparable value that the registry reduces to one pane state.
//
// # Snapshot
//
// A [Snapshot] holds the agent's [Phase] (working between agent start and
// agent settled, or as a phase host says), the open UI prompts counted in
// [Prompts], what the workflow observation stream says ([Workflows]), the
// number of running background tasks, and the session [Identity]. Its zero
// value means "no active session" and reduces to idle.
//
// Snapshots hold counts and flags, not lists, so that two snapshots can be
// compared with == and copied without allocating. The [Store] keeps the
// detail (which prompt ids are open) and derives the snapshot from it.
//
// Both reference vocabularies fit:
//
//   - event hosts call [Store.AgentStart], [Store.AgentSettled],
//     [Store.PromptStart], [Store.PromptEnd], [Store.SetWorkflows] and
//     [Store.SetTasks]; settled, not "agent end", is the idle boundary;
//   - phase hosts call [Store.SetPhase]: awaiting, thinking, streaming and
//     tool execution are [PhaseWorking]; the idle prompt is [PhaseIdle], a
//     completed turn [PhaseCompleted], a turn error [PhaseError].
//
// A host may use both, but each keeps its own truth: the snapshot's phase is
// [PhaseWorking] while either the agent runs (AgentStart without
// AgentSettled) or the last phase set is working. A host that calls
// AgentSettled while its phase still says working leaves the pane working;
// set the phase to idle, completed or error as well.
//
// # Host
//
// A [Host] tells the registry how the agent process runs. Only an
// interactive root session claims a pane: print, JSON and RPC runs, runs
// without a UI, subagents and workflow stages never do, even though they
// inherit the pane's environment.
//
// # Notify, then pull
//
// A [Source] has two methods: Snapshot and Subscribe. Subscribers are told that
// something changed, never what; they pull the newest snapshot when they are
// ready. A slow subscriber therefore only ever sees the latest state, and a
// publisher never waits for one. [Store] is the ready-made Source; a chat
// service with its own UI store implements the two methods itself.
package session
