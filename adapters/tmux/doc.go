// Package tmux reports the agent's state to the tmux pane the host runs in,
// as pane user options that the user's status line and pane borders show.
// docs/tmux.md has the full account and ready-to-paste tmux.conf lines.
//
// # What it sets
//
// Each report sets, in one tmux invocation (commands chained with a ";"
// argument), @panestate_state (working, blocked or idle),
// @panestate_message (a fixed text or empty), @panestate_agent (the host's
// app name) and @panestate, all of it as one JSON object. Release unsets
// the four. Nothing is sent to the pane's title or contents.
//
// # When it applies
//
// [Driver.Open] finds the adapter applicable when the captured environment
// has TMUX and TMUX_PANE, the host is an interactive root session
// ([builtin.CheckHost]), and an executable "tmux" is found in the captured
// PATH (relative entries skipped). Otherwise Open returns an error wrapping
// [adapter.ErrInactive] that names the condition that failed, and starts
// nothing. Every call names the server and the pane (tmux -S <socket>
// set-option -p -t <pane> ...), so no other server or pane is touched.
//
// # Settings
//
//	{ "tmux": { "enabled": true, "prefix": "panestate", "timeout": "5s" } }
//
// prefix (default [DefaultPrefix]) names the options; timeout (default
// [DefaultTimeout]) is the deadline of each tmux call.
//
// # Failures
//
// tmux runs through [cmdrun.Runner]. A call that fails becomes one
// diagnostic per kind (spawn_failed, timeout, protocol_rejected) until the
// next Release, with tmux's own messages reduced to a code such as
// [CodePaneNotFound]. A release that finds the pane gone or the server not
// running counts as done.
//
// # Child processes
//
// [Driver.ScrubEnv] removes TMUX_PANE, and only it, so that a nested agent
// cannot take the parent's pane while tmux-aware tools keep working.
//
// # Alongside Herdr
//
// This adapter and the Herdr adapter may both be active; the registry runs
// each on its own goroutine, and neither waits for the other.
package tmux
