// Package adapter is the contract between panestate's registry and the
// adapters that show an agent's state in a terminal workspace (Herdr, a
// terminal title, a tmux status line...).
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
// A workspace is supported by a [Driver] under a name in the registry's
// drivers (registry.Builtin, or registry.Options.Drivers). When the host attaches reporting, the registry calls the
// driver's Open with [Params]: the adapter's name, its own raw settings
// section, a logger, the captured [Env], the [session.Host] context and a diagnostics
// sink. Open returns an [Adapter], or an error wrapping [ErrInactive] that
// says why the adapter does not apply here. An inactive adapter has started
// nothing.
//
// [Adapter] has one required method, Report. The registry calls it from one
// goroutine per adapter, with latest-wins coalescing in front, so an adapter
// delivers synchronously and never queues.
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
// Everything else is optional, found by type assertion. The helpers in this
// package do the assertion and the fallback, so callers never type-assert:
//
//   - [Releaser]: hand the workspace's slot back when reporting stops for
//     good. Helper [Release]; fallback: nothing to release.
//   - [Closer]: free resources, idempotently. Helper [Close]; fallback:
//     nothing to close.
//   - [SessionAware]: receive the [session.Identity]. Helper [SetSession];
//     fallback: the identity is not forwarded.
//   - [Refresher]: have the current report delivered again after a quiet
//     interval, for workspaces that forget. Helper [RefreshInterval];
//     fallback: no refresh.
//   - [Explainer]: add adapter-specific lines to registry.Explain. Helper
//     [Explain]; fallback: none.
//   - [SettingsOwner] (on drivers): whether the adapter runs when the
//     settings do not mention it, and the settings keys it owns. Helper
//     [Settings]; fallback: yes, and only "enabled".
//   - [EnvScrubber] (on drivers): remove the workspace's variables from a
//     child process's environment. Helper [ScrubEnv]; fallback: unchanged.
//   - [Checker] (on drivers): what Open would say, without opening it:
//     whether the adapter applies here, then whether its settings section
//     would make Open fail. Helper [Check]; fallback: applies, valid.
//
// # Host context
//
// [session.Host] says how the agent runs: whether it is interactive (a TUI
// with a UI) and the root session, its session identity and the extensions
// it actually loaded. The host
// context belongs to package session, so a chat service never imports this
// package. Only an interactive root session ([CheckHost]) may claim a pane: print,
// JSON, RPC, no-UI, subagent and workflow-stage processes that merely
// inherited a pane's environment must not.
//
// # Diagnostics
//
// Things that go wrong inside an adapter are [Diagnostic] values of a fixed
// [Kind] with a bounded detail ([NewDiagnostic]), sent to Params.Diagnose.
// The registry logs them and shows them in Explain; they never become errors
// of the agent.
//
// # Settings
//
// Params.Settings is the adapter's own section, raw JSON for the adapter to
// decode. [ParseDuration] reads a duration value in the form every built-in
// adapter takes (a Go duration string or a number of milliseconds).
//
// # Building on this package
//
// Package calls holds the call gate and the once-per-claim diagnostics of an
// adapter that makes blocking calls to its workspace; package cmdrun runs a
// workspace's CLI for one.
//
// # Testing an adapter
//
// Package adaptertest holds a conformance suite every adapter should pass
// and a Recorder adapter for hosts' own tests.
package adapter
