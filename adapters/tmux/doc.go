// Package tmux reports the agent's state to the tmux pane the host runs in,
// as pane user options that the user's status line and pane borders show.
//
// # What it sets
//
// Each report sets four options on the host's own pane, in one tmux
// invocation (commands chained with a ";" argument):
//
//	@panestate_state    working, blocked or idle
//	@panestate_message  "Waiting for approval", "Waiting for input",
//	                    "Workflow needs attention", or empty
//	@panestate_agent    the host's app name (e.g. "atomic")
//	@panestate          all of it as one JSON object: state, message,
//	                    agent, app, session (the id), updated (RFC 3339)
//
// Release unsets all four (set-option -p -u). Nothing is sent to the
// pane's title or contents: agents set their own titles, and tmux shows the
// options only where the user's formats ask for them (#{@panestate_state}
// in window-status-format, pane-border-format, status-right...). See
// docs/tmux.md for ready-to-paste tmux.conf lines.
//
// # When it applies
//
// [Driver.Open] finds the adapter applicable when the captured environment
// has TMUX ("<socket>,<server pid>,<session>", which tmux sets in every
// pane) and TMUX_PANE ("%N"), the host is an interactive root session
// ([builtin.CheckHost]), and an executable "tmux" is found in the captured
// environment's PATH (searched once, at Open, skipping relative entries;
// the result is absolute). Otherwise Open returns an error wrapping
// [adapter.ErrInactive] that names the condition that failed, and starts
// nothing.
//
// Every call names the server and the pane explicitly,
//
//	tmux -S <socket from TMUX> set-option -p -t <TMUX_PANE> ...
//
// so a nested tmux, or another server the user runs, is never touched, and
// the options land on the host's pane whichever pane is active.
//
// # Settings
//
// The "tmux" section of the host's settings:
//
//	{ "tmux": { "enabled": true, "prefix": "panestate", "timeout": "5s" } }
//
// enabled (default true) turns the adapter off when false. prefix (default
// [DefaultPrefix]) names the options @<prefix>_state, _message and _agent;
// it is 1-32 letters, digits, "_" or "-", so that it is a valid tmux user
// option name and can be used inside formats. timeout (default 5s) is the
// deadline of each tmux call, a duration string or a number of
// milliseconds, clamped to 100ms..60s as herdr.timeout is.
//
// # Failures
//
// tmux runs through [cmdrun.Runner]: argv only, a deadline per call with
// the process group killed at expiry, bounded output that is never logged.
// A call that fails becomes one diagnostic per kind (spawn_failed, timeout,
// protocol_rejected) from the first Report after Open or Release until the
// next Release, with tmux's own messages reduced to a code:
// [CodeServerNotRunning] ("no server running on ..."), [CodePaneNotFound]
// ("can't find pane: ...", "no such pane: ..."), [CodeConnectFailed],
// [CodeAccessDenied], [CodeServerExited] or [CodeVersionMismatch]. A
// release that finds the pane gone, or the server not running on a socket
// that still exists (or exiting during the call), counts as done: the
// options went with them. When the socket file itself is gone, tmux says
// only that it could not connect ([CodeConnectFailed]); that release fails,
// and the adapter stays unreleased for the next Detach.
//
// # Child processes
//
// Hosts pass the environment of the agent's tool subprocesses through
// Registry.ScrubEnv, which asks this driver too: [Driver.ScrubEnv] removes
// TMUX_PANE, and only it, so that a nested agent cannot take the parent's
// pane while tmux-aware tools keep working.
//
// # Alongside Herdr
//
// This adapter and the Herdr adapter may both be active (a Herdr pane
// inside tmux, or tmux inside Herdr): the registry runs each on its own
// goroutine, and neither waits for the other.
package tmux
