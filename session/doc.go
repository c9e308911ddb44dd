// Package session models what an AI agent's chat session is doing, as plain
// comparable data, and publishes it to whoever reports pane state.
//
// # Snapshot
//
// A [Snapshot] is a small comparable value: whether the agent is running
// (between agent start and agent settled), the activity [Phase] of hosts that
// speak in phases, the open UI prompts counted by [PromptKind], the workflow
// observation stream aggregated into [Workflows], the number of running
// background tasks, and the session [Identity]. Its zero value means "no active
// session" and reduces to idle.
//
// Snapshots aggregate: they hold counts, not lists, so that two snapshots can be
// compared with == and copied without allocating. The [Store] keeps the detail
// (which prompt ids are open, which workflow roots exist) and derives the
// snapshot from it.
//
// Both reference vocabularies fit:
//
//   - event hosts call [Store.AgentStart], [Store.AgentSettled],
//     [Store.PromptStart], [Store.PromptEnd], [Store.SetWorkflows] and
//     [Store.SetTasks]; settled, not "agent end", is the idle boundary;
//   - phase hosts call [Store.SetPhase] with awaiting, thinking, streaming,
//     tool execution, idle, completed or error.
//
// A host may use both, but each keeps its own truth: the agent counts as
// active while either AgentRunning is set or the phase is an active one. A
// host that calls AgentSettled while its phase still says tool execution
// leaves the pane working; set the phase to idle, completed or error as well.
//
// # Notify, then pull
//
// A [Source] has two methods: Snapshot and Subscribe. Subscribers are told that
// something changed, never what; they pull the newest snapshot when they are
// ready. A slow subscriber therefore only ever sees the latest state, and a
// publisher never waits for one. [Store] is the ready-made Source; a chat
// service with its own UI store implements the two methods itself.
package session
