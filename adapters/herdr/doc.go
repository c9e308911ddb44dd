// Package herdr reports an agent's state to the Herdr pane it runs in,
// through the Herdr CLI (`herdr pane report-agent` and `herdr pane
// release-agent`), as specified for Herdr 0.8.2 (socket protocol 20).
//
// Hosts do not use this package directly: the registry lists [Driver] among
// its built-in drivers and drives the [Adapter] it opens, and
// registry.ScrubEnv (which hosts call on the environment of every tool
// subprocess they start) removes Herdr's variables through
// [Driver.ScrubEnv].
//
// # Activation
//
// [Driver.Open] reads the environment captured in adapter.Params, never the
// process's. The adapter is active only when HERDR_ENV is exactly "1",
// HERDR_BIN_PATH, HERDR_PANE_ID and HERDR_SOCKET_PATH are set, and
// HERDR_BIN_PATH is an executable regular file; only an interactive root
// host (TUI mode, with a UI) may claim a pane; and when the host has loaded
// a reporter of its own ([Driver.Conflicts]), the adapter defers to it with
// one unsupported diagnostic. Otherwise Open returns an error wrapping
// adapter.ErrInactive that names the failed condition, having started
// nothing.
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
// # Calls
//
// Every call runs the CLI directly with an argument vector, never a shell,
// with HERDR_SOCKET_PATH pinned to the captured value. Every value is its own
// argument; no value is one the CLI would swallow (--session, --remote,
// --handoff...), invalid UTF-8, or has control characters. The only
// --message texts are the fixed adapter.Message texts.
//
// A call has a deadline (the "timeout" setting, 5 s by default). At the
// deadline the child is killed; when ctx ends first the child is killed too,
// and ctx's error is returned without a diagnostic. On Unix the child runs
// in a process group of its own, which is killed at the deadline and again
// once the call is over, whatever its exit status, so no helper the CLI
// started outlives the call; on Windows only the child itself is killed, and
// a grandchild holding the output pipes is cut loose after a short delay
// (exec.Cmd.WaitDelay). Stdout and stderr are each kept up to 64 KiB, only to find Herdr's
// JSON error code, and are never logged. A failure is a [*CallError] of kind
// spawn_failed, timeout or protocol_rejected, returned from Report so that
// the registry tries again later, and sent as a diagnostic at most once per
// kind and claim.
//
// # Sequence numbers
//
// Herdr silently ignores a report whose --seq is not above the last one it
// accepted from the same source in the same pane. Every call, the release
// included, therefore carries max(clock in ms, high-water + 1). The
// high-water mark is process-wide, per socket and pane, so it survives
// adapter reloads and a clock that steps back. It is also kept on disk, in a
// file per pane under [Driver.StateDir]: before each call, under a
// cross-process file lock, the adapter reads the file, takes max(clock ms,
// process high-water + 1, file + 1), writes that exact number back and
// unlocks. A restarted process, or a second process in the same pane,
// therefore continues one above the newest number, even after the clock went
// back. A number is above the clock only after the clock stepped back or
// when several calls fell in one millisecond, and then by no more than that
// takes: nothing is reserved ahead. A failure to read or write the file is a
// persist_failed diagnostic, never a failed report.
//
// # Ownership
//
// Each pane has one process-wide lease. An adapter claims it at its first
// Report; an adapter opened later (a successor, after a settings reload)
// retires the older holder: it waits for the holder's in-flight call and
// sends no release. From then on the retired adapter's Report and Release
// send nothing and return nil, with one stale_owner diagnostic. Only one
// CLI child runs per pane at a time.
//
// # Session identity
//
// The session id and, when absolute, the session path (from
// session.Host.Identity and [Adapter.SetSession]) go out with
// --agent-session-id and --agent-session-path on every report of a claim
// until one is delivered; a changed identity is sent again. Herdr 0.8.2
// discards these for custom sources; they are sent as the documented
// contract.
//
// # Lifecycle
//
// [Adapter.Release] waits for the in-flight call, then hands the pane back
// with a fresh sequence number. [Adapter.Close] kills any in-flight call and
// frees the lease without telling Herdr. Nothing runs between calls: the
// adapter has no goroutine, timer or background process.
package herdr
