// Package adapter is what an adapter author implements to show an agent's
// state in a terminal workspace: a [Driver] whose Open reads the [Params]
// (the adapter's settings section, the captured [Env], the [session.Host],
// a logger and a diagnostics sink) and returns an [Adapter], whose one
// required method, Report, delivers a [Report] to the workspace. A host
// puts the driver in registry.Options.Drivers (the built-in ones are
// registry.Builtin); the registry does the rest (when to open, what to
// deliver, when to release).
//
// # Reports
//
// A [Report] is a comparable value: a [State] (idle, working, blocked), an
// internal [Reason] (never sent anywhere) and a [Message] drawn from a fixed
// set. Message is a number, not a string, so nothing the agent says can reach
// a workspace by construction.
//
// # Drivers and adapters
//
// When the host attaches reporting, the registry calls the driver's Open
// with [Params]: the adapter's name, its own raw settings section, a
// logger, the captured [Env], the [session.Host] context and a diagnostics
// sink. Open returns an [Adapter], or an error wrapping [ErrInactive] that
// says why the adapter does not apply here. An inactive adapter has started
// nothing.
//
// The registry calls Report from one goroutine per adapter, with
// latest-wins coalescing in front, so an adapter delivers synchronously and
// never queues.
//
// # Withdrawal
//
// When reporting stops, the report in flight is withdrawn rather than
// cancelled: [Withdrawn] tells an adapter not to send a request that has not
// left the process yet ([ErrWithdrawn]), while one that may have left is
// waited for, so that the release that follows can never be overtaken by it.
// [WithWithdraw] makes such a context for an adapter's own tests.
//
// # Optional interfaces
//
// Everything else is optional: the registry finds it by type assertion and
// falls back when an adapter or driver does not implement it.
//
//   - [Releaser]: hand back what the adapter holds in the workspace when
//     reporting stops for good. Fallback: nothing to release.
//   - [Closer]: free resources, idempotently. Fallback: nothing to close.
//   - [SessionAware]: receive the [session.Identity]. Fallback: the
//     identity is not forwarded.
//   - [Refresher]: have the current report delivered again after a quiet
//     interval, for workspaces that forget. Fallback: no refresh.
//   - [Detailer]: add adapter-specific lines (a pane id, counters, the
//     route it takes) to the registry's report, registry.Explain.
//     Fallback: none.
//   - [PaneOwner]: say that another claim holds the pane, so that the
//     registry shows the adapter as stale_owner. Fallback: it owns it.
//   - [SettingsOwner] (on drivers): whether the adapter runs when the
//     settings do not mention it, and the settings keys it owns. Fallback:
//     yes, and only "enabled".
//   - [EnvScrubber] (on drivers): remove the workspace's variables from a
//     child process's environment. Fallback: unchanged.
//   - [Checker] (on drivers): what Open would say, without opening it:
//     whether the adapter applies here, then whether its settings section
//     would make Open fail; the registry shows it in Explain before Attach
//     and for a disabled adapter. Fallback: applies, valid.
//   - [Previewer] (on drivers): the setup Open would give the adapter (the
//     settings it would use, the route it would take), shown as its
//     details in Explain before it is open. Fallback: no details until
//     then.
//
// # Host context
//
// [session.Host] says how the agent runs: whether it is interactive (a TUI
// with a UI) and the root session, its session identity and the extensions
// it actually loaded. The host context belongs to package session, so a chat
// service never imports this package. Only an interactive root session
// (Host.Interactive and Host.Root) may claim a pane: print, JSON, RPC, no-UI,
// subagent and workflow-stage processes that merely inherited a pane's
// environment must not. A driver that claims one returns an error wrapping
// [ErrInactive] otherwise, saying which condition failed.
//
// # Diagnostics
//
// Things that go wrong inside an adapter are [Diagnostic] values of a fixed
// [Kind] with a bounded detail ([NewDiagnostic]), sent to Params.Diagnose.
// The registry logs them and shows them in Explain; they never become errors
// of the agent. [Bound] cleans and bounds any other outside text an adapter
// shows.
//
// # Settings
//
// Params.Settings is the adapter's own section, raw JSON for the adapter to
// decode in the form it documents.
//
// # What the registry gives every adapter
//
// An adapter delivers one report at a time and blocks while it does: the
// registry coalesces reports in front of it (the newest wins), throttles
// changes, retries a failed state with capped backoff, recovers a panic in
// any of its methods into an adapter_panic diagnostic, bounds the release
// at Detach with its release budget, and orders a replacing adapter's calls
// after its predecessor's (waiting for it at most its release budget). The
// built-in adapters share further helpers
// (pane claims across processes, a CLI runner, a call gate); they are
// internal to this module, as database/sql/driver exports the contract
// only.
//
// # Testing an adapter
//
// Package adaptertest holds a conformance suite every adapter should pass
// (Run for adapters, RunDriver for drivers) and
// a Recorder adapter for hosts' own tests.
package adapter
