// Package herdr reports an agent's state to the Herdr pane it runs in, as
// specified for Herdr 0.8.2 (socket protocol 20) and 0.9.x (protocol 22),
// over Herdr's API socket or through the Herdr CLI (`herdr pane
// report-agent`, `herdr pane release-agent`). docs/herdr.md is the user's
// reference; this comment keeps what a reader of the code needs.
//
// Hosts do not use this package directly: the registry lists [Driver] among
// its built-in drivers and drives the [Adapter] it opens, and
// Registry.ScrubEnv removes Herdr's variables through [Driver.ScrubEnv].
//
// # Activation
//
// [Driver.Open] reads the environment captured in adapter.Params, never the
// process's. It needs HERDR_ENV exactly "1", HERDR_PANE_ID,
// HERDR_SOCKET_PATH, and HERDR_BIN_PATH as an absolute path to an
// executable regular file (a relative one would run a file of the working
// directory, maybe an untrusted repository); an interactive root host; and
// no reporter of the host's own ([Driver.Conflicts]). Otherwise it returns
// an error wrapping adapter.ErrInactive that names the failed condition.
//
// # Identity and transports
//
// Reports use the source "custom:<app>" and the label "<app>" (settings
// "source" and "agent"); Open refuses a source outside [A-Za-z0-9:._-]{1,80}
// or in Herdr's "herdr:" namespace, and a label Herdr ties to one of its
// built-in agents. "transport" auto (the default) pings the server once per
// claim and uses the socket for protocol 20 or 22, the CLI otherwise; a
// release is never preceded by a ping. Both send the same request. The CLI
// runs as an argument vector through internal/cmdrun (process group killed
// at the deadline, output kept up to 64 KiB), and no value is one the CLI
// would swallow (--session...), invalid UTF-8 or a control character. What
// Herdr writes is never logged, only its error codes the adapter knows.
//
// A call has a deadline (the "timeout" setting, 5 s). A report withdrawn by
// the registry ([adapter.Withdrawn]) that has not left the process is
// dropped with [adapter.ErrWithdrawn]; one that may have left is waited
// for, so that the release cannot overtake it. A failure is a [*CallError]
// of kind spawn_failed, timeout or protocol_rejected, sent as a diagnostic
// at most once per kind and claim.
//
// # Sequence numbers and ownership
//
// Herdr ignores a report whose seq is not above the last one of the same
// source in the pane, so every call carries a number above every earlier
// one of every process in the pane, kept process-wide and in the pane file
// under [Driver.StateDir] by package internal/owner, whose lock is held
// across the call. The newest claim owns the pane; an older one is stale
// (its Report and Release send nothing, with one stale_owner diagnostic)
// and takes the pane back once it is free. A number never wraps: at 2^64-1
// it stays, with one invalid_value diagnostic.
//
// # Refresh, session identity and resume
//
// Herdr keeps custom reporters in memory only, so [Adapter.RefreshInterval]
// (the "refresh" setting, 30 s) has the registry report again when nothing
// was delivered for that long, and a server restart the adapter notices
// starts the claim over. The session identity goes out with each report of
// a claim until one is delivered. Its resume argv goes to a server of 0.9.2
// or later only, right after the first delivered report of a claim; when
// Herdr refuses it (or a CLI before 0.9.2 exits 2 on the "--"), the report
// goes again without it, and resume is off for the claim.
//
// # Lifecycle
//
// [Adapter.Release] withdraws the adapter's report in flight, then hands
// the pane back within min(timeout, [MaxReleaseTimeout]). [Adapter.Close]
// abandons any call in flight and gives the pane up without telling Herdr.
// Between calls only the owner's watch runs, from the first Report to the
// release: one read of the pane file per 200 ms, to take the pane back.
package herdr
