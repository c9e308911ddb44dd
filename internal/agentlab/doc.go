// Package agentlab runs the real coding agents (Claude Code, Codex,
// Gemini CLI, installed from npm at pinned versions) end to end against
// panestate: a mock model API on 127.0.0.1, a fake HOME, `panestate
// install <agent>`, the agent in a terminal pane of the emulated Herdr or
// of a private tmux server, driven with keys, and the timeline of what
// the pane showed. It is test support: nothing in the product uses it.
//
// # The agent
//
// [Binary] finds an [Agent]'s executable under [AgentsDir]
// ($PANESTATE_AGENTS, else agents under
// ${PANESTATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/panestate}), at
// <name>/node_modules/.bin/<bin>, and installs the pinned package there
// with npm when it is missing. Without node or npm a test is skipped with
// the reason, except under CI=true, where it fails.
//
// # The home
//
// [NewHome] makes a fake HOME with a work directory, a private
// XDG_RUNTIME_DIR and a PATH whose first directory holds the panestate
// binary that [Panestate] builds once per test binary (call [Cleanup]
// from TestMain). Each agent's setup writes what it needs to start
// without onboarding or login dialogs, points it at the mock model and
// runs [Home.Install] (`panestate install <agent>`): [SetupClaude] for
// Claude Code.
//
// # The mock model
//
// [StartModel] serves a [Flavour] of a model API on a free port of
// 127.0.0.1 and answers each model request with its [Script]: a [Reply]
// of text, of a [ToolCall], or a stalled stream ([Reply.Stall]). A
// flavour decodes the agent's request into a [Request] (its prompt, the
// [Result]s of the previous tool calls, how many tools it offers) and
// writes the reply as its API streams it, with the helpers [ReadBody],
// [NewSSE] and [Stall]. [Anthropic] is the Messages API; [Text] and
// [ToolTurn] are ready-made scripts; [ModelServer.Requests] lists what
// was asked.
//
// # The pane
//
// [StartPane] makes a pane of a private tmux server (its socket in a
// directory of its own, the server killed by it when the test ends), for
// a [Workspace]: [Herdr], where the agent sees the emulated Herdr's pane
// variables and not tmux's, or [Tmux], where it sees TMUX and TMUX_PANE.
// [Pane.Run] starts the agent there with exactly the home's environment;
// [Pane.Keys], [Pane.Type], [Pane.Screen], [Pane.WaitScreen],
// [Pane.WaitExit] and [Pane.Kill] drive it. [Pane.Timeline] is what the
// pane showed, as [Step]s with times (Herdr: the emulator's applied
// reports; tmux: the @panestate_* options, polled every 20 ms);
// [Pane.WaitState] waits for a state; [Pane.Leaks] says where a marker
// string reached the workspace.
package agentlab
