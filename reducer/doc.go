// Package reducer maps what an agent's session is doing to one pane report.
//
// [Reduce] is a pure, total function in the manner of an Update function: a
// [session.Snapshot] in, an [adapter.Report] out. It takes no logger, clock,
// context or global state, never allocates, and maps every snapshot, however
// odd, to a valid report or to "no new report".
//
// # Inputs
//
// Negative counts in a snapshot count as zero. The agent is active when the
// snapshot's [session.Phase] is [session.PhaseWorking]: the agent runs
// (between agent start and agent settled) or a phase host says awaiting,
// thinking, streaming or tool execution. Idle, completed and error are not
// active. The session identity plays no part.
//
// Three facts are derived from [session.Workflows]:
//
//   - workflow execution: some root is executing, continuing automatically,
//     retrying or stopping. Its reason is the first of
//     [adapter.ReasonExecuting], [adapter.ReasonAutomaticContinuation],
//     [adapter.ReasonRetrying] and [adapter.ReasonStopping] whose flag is
//     set;
//   - blocked workflow: some root is awaiting input or needs manual
//     intervention;
//   - workflow attention: a blocked workflow, or any unfinished root that
//     asked for attention ([session.Workflows.NeedsAttention]).
//
// # States and reasons
//
// The rules are tried in order and the first that matches decides:
//
//	#  snapshot                                    state    reason                        message
//	1  workflow execution                          working  the workflow's (see above)    Workflow needs attention if workflow attention
//	1b a subagent is working                       working  subagents                     Workflow needs attention if workflow attention
//	2  a prompt is open, the agent's or a          blocked  awaiting_input                Waiting for approval if an approval is open,
//	   subagent's                                                                          else Waiting for input
//	3  agent active                                working  executing                     Workflow needs attention if workflow attention
//	4  background tasks running                    working  background_tasks              Workflow needs attention if workflow attention
//	5  blocked workflow                            blocked  manual_intervention if any    Workflow needs attention
//	                                                        root needs it, else
//	                                                        awaiting_input
//	6  workflow source unknown (unavailable or     no new report (Reduce returns false)
//	   recovering: [session.Workflows.Unknown])
//	7  paused roots, no other unfinished root      idle     paused                        none
//	8  phase completed                             idle     completed                     none
//	   phase error                                 idle     error                         none
//	   anything else                               idle     quiescent                     none
//
// The zero snapshot therefore reduces to idle, quiescent, with no message.
//
// # Why this order
//
// Independent workflow execution (rule 1) keeps the pane working even after
// the agent settled and even while a prompt waits for the person: the
// workflow is making progress on its own, and reporting blocked would tell
// the person the whole pane is stuck on them. The attention message tells
// them that something also wants them.
//
// Subagents ([session.Subagents]) are the agent's independent execution
// too (rule 1b): one working on after the agent's turn ended keeps the pane
// working, and a subagent waiting on the person makes the pane blocked
// (rule 2), never idle. The report's Children are the listed subagents, one
// for one, each working or blocked with its fixed message; only adapters
// that show children (adapter.ChildReporter) get them.
//
// An open prompt (rule 2) comes before the agent's own activity (rule 3): an
// agent parked on an approval prompt is waiting for the person, not working.
// Question, secret and menu prompts ([session.PromptInput]) all read "Waiting
// for input"; the prompt's own title is never forwarded.
//
// The workflow source being unavailable or recovering (rule 6) comes after
// every rule that can be decided from what is still known, and before every
// idle rule: missing workflow knowledge is never taken to mean "no
// workflows", so Reduce reports nothing new and the last report stands until
// the source is ready again.
//
// A root that asked for attention but is paused (or finished) does not make
// the pane blocked: blocked is reserved for roots that actually wait on the
// person. The attention message rides only on working reports (rules 1, 3
// and 4) and on blocked workflow reports (rule 5); idle reports never carry
// a message.
package reducer
