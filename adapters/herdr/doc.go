// Package herdr reports an agent's state to the Herdr pane it runs in, as
// specified for Herdr 0.8.2 (socket protocol 20) and 0.9.x (protocol 22):
// over Herdr's API socket, or through the Herdr CLI (`herdr pane
// report-agent` and `herdr pane release-agent`).
//
// Hosts do not use this package directly: the registry lists [Driver] among
// its built-in drivers and drives the [Adapter] it opens, and
// Registry.ScrubEnv (which hosts call on the environment of every tool
// subprocess they start) removes Herdr's variables through
// [Driver.ScrubEnv].
//
// # Activation
//
// [Driver.Open] reads the environment captured in adapter.Params, never the
// process's. The adapter is active only when HERDR_ENV is exactly "1",
// HERDR_BIN_PATH, HERDR_PANE_ID and HERDR_SOCKET_PATH are set, and
// HERDR_BIN_PATH is an absolute path to an executable regular file (a
// relative one would run a file of the working directory, which may be an
// untrusted repository); only an interactive root host (TUI mode, with a
// UI) may claim a pane; and when the host has loaded a reporter of its own
// ([Driver.Conflicts]), the adapter defers to it with one unsupported
// diagnostic. Otherwise Open returns an error wrapping adapter.ErrInactive
// that names the failed condition, having started nothing.
//
// # Identity
//
// Reports use the source "custom:<app>" and the agent label "<app>"
// (settings "source" and "agent" override them), constant for the life of
// the adapter. Open refuses a source outside [A-Za-z0-9:._-]{1,80} or in
// Herdr's "herdr:" namespace, an empty label, and a label Herdr would read as
// one of its built-in agents (it ties those to process detection and may
// ignore or clear them).
//
// # Transports
//
// The "transport" setting picks how calls reach Herdr. "auto" (the
// default) pings the server once per claim, and again after a failed
// connection, and uses the socket when the server answers with protocol 20
// or 22; otherwise (nothing listening, a failed connection, another
// protocol) it runs the CLI, which gives the same diagnostics. A ping not
// answered before the deadline is a timeout: the CLI would wait on the
// same wedged server. A release is never preceded by a ping: it
// goes by the last answer, or tries the socket. "socket" never spawns a
// process and fails a call to a server of another protocol; "cli" never
// dials. On Windows the
// socket is the named pipe \\.\pipe\ followed by HERDR_SOCKET_PATH, dialled
// with go-winio.
//
// Both transports send the same request: the same source, label and fixed
// messages, a fresh sequence number, the session identity until delivered,
// the same deadline. The socket request is one line of JSON on a fresh
// connection and its response is read up to 64 KiB (package wire). The CLI
// runs with an argument vector, never a shell, with HERDR_SOCKET_PATH pinned
// to the captured value, through internal/cmdrun: its process group is
// killed at the deadline and once the call is over, a child gets a
// parent-death signal on Linux and FreeBSD (elsewhere a host killed outright
// leaves a running CLI child to finish on its own), and stdout and stderr
// are kept up to 64 KiB each.
// Every CLI value is its own argument; no value is one the CLI would swallow
// (--session, --remote, --handoff...), invalid UTF-8, or has control
// characters. What Herdr writes is never logged: only its error code, when
// it is one the adapter knows.
//
// A call has a deadline (the "timeout" setting, 5 s by default). At Detach
// the registry withdraws the report in flight ([adapter.Withdrawn]): one
// that has not left the process (waiting for the pane, a CLI not started, a
// socket not written) is dropped with [adapter.ErrWithdrawn]; one that may
// have left is waited for, so that the release cannot overtake it. When ctx
// ends first (the registry's release budget ran out: a hung Herdr) the call
// is abandoned at once and ctx's error is returned without a diagnostic. A
// failure is a [*CallError] of kind spawn_failed, timeout or
// protocol_rejected (with Herdr's code: server_not_running when nothing
// listens, protocol_mismatch, pane_not_found...), returned from Report so
// that the registry tries again later, and sent as a diagnostic at most
// once per kind and claim.
//
// # Sequence numbers and ownership across processes
//
// Herdr silently ignores a report whose seq is not above the last one it
// accepted from the same source in the same pane. Every call, the release
// included, therefore carries max(clock in ms, high-water + 1), with the
// high-water mark kept process-wide (so it survives adapter reloads and a
// clock that steps back) and in a file per pane under [Driver.StateDir].
// Each call takes the pane's cross-process file lock for a moment, reads
// the file, picks the number, writes it back with a mark of the call in
// flight and takes the pane's call lock, which it holds until the call
// ends; another process's call waits while both stand: the numbers rise in
// the order Herdr receives the calls, across every process in the pane. A number never wraps: at 2^64-1 it stays there, with one
// invalid_value diagnostic. A failure to use the file is a persist_failed
// diagnostic, never a failed report.
//
// The same file names the claim that owns the pane. Within a process each
// pane has one owner: an adapter claims it at its first Report, and one
// opened later (a successor, after a settings reload) makes the older one
// stale, waiting for its in-flight call and sending no release. Across
// processes the newest claim wins too: a process whose pane another live
// process has claimed since is stale; its Report and Release send nothing
// and return nil, with one stale_owner diagnostic, so it never releases the
// newer claim. Once the newer process has released the pane, or has exited,
// the older one takes the pane back by itself, without waiting for a state
// change: while it holds the pane its claim reads the pane file every
// 200 ms (see package internal/owner).
//
// # Refresh
//
// Herdr keeps custom reporters in memory only: a server restart forgets
// them. [Adapter.RefreshInterval] (the "refresh" setting, 30 s by default, 0
// for never) asks the registry to report the current state again, with a
// fresh sequence number, when nothing was delivered for that long; a
// repeated idle leaves Herdr's done status as it is. The cost is one call
// per interval. A restart that the adapter notices (a call finds no
// server, or the file at the socket path is not the one the last report
// found: a new server binds its socket anew) starts the claim over, so
// that the session identity and the resume argv are sent again.
//
// # Session identity and resume
//
// The session id and, when absolute, the session path (from
// session.Host.Identity and [Adapter.SetSession]) go out with every report
// of a claim until one is delivered; a changed identity is sent again.
// Herdr 0.8.2 discards these for custom sources; they are sent as the
// documented contract. The identity's Resume argv, the command that reopens
// the session after a Herdr restart, is sent only to a server of 0.9.2 or
// later (from the ping's version, or for the cli transport from `herdr
// status server --json`) and only once the pane is held: right after the
// first delivered report of a claim, the same report goes again with it
// (as `-- argv...` on the CLI, resume_argv on the socket). An argv Herdr
// would refuse is dropped with an invalid_value diagnostic; when Herdr
// answers invalid_resume_argv, or the CLI exits 2 (a CLI before 0.9.2
// refuses the "--"), the report is sent again without it, and resume is
// off for the rest of the claim.
//
// # Lifecycle
//
// [Adapter.Release] withdraws the adapter's own report in flight (dropped
// if it has not left, waited for within the release's budget if it may
// have, abandoned only when that budget runs out), waits for any other
// call on the pane, then hands
// the pane back with a fresh sequence number, within a budget of its own:
// min(timeout, [MaxReleaseTimeout]) for waiting and calling together. [Adapter.Close]
// abandons any in-flight call and gives the pane up without telling Herdr.
// Nothing runs between calls: the adapter has no goroutine, timer or
// background process.
package herdr
