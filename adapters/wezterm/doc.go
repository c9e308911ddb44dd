// Package wezterm reports the agent's state to WezTerm as user variables
// of the agent's pane (OSC 1337 SetUserVar, base64 values), which the
// person's WezTerm configuration reads from Lua (pane:get_user_vars(),
// the user-var-changed and update-status events) for tab titles and the
// status bar. The sequence travels through the pty, so it crosses ssh
// like any output.
//
// The registry lists this adapter among the built-ins under the name
// "wezterm". Users read docs/wezterm.md; this comment is for hosts and
// for whoever maintains the adapter.
//
// # What it writes
//
// Three variables, each set by its own sequence in one Write, only when
// its value changes (ESC ] 1337 ; SetUserVar=<name>=<base64 value> BEL):
//
//	panestate_state     idle, working or blocked
//	panestate_message   "Waiting for approval", "Waiting for input", "Workflow needs attention" or ""
//	panestate_agent     the host's application name
//
// Release sets all three to "" (WezTerm has no way to remove a user
// variable). Nothing the agent said reaches a variable: the message is one
// of the fixed texts.
//
// # When it is active
//
// Only with a terminal handed over (registry.Options.Terminal), for an
// interactive root session, outside Herdr (HERDR_ENV=1) and with a TERM
// other than dumb; then where WezTerm is detected (TERM_PROGRAM=WezTerm,
// or WEZTERM_PANE or WEZTERM_EXECUTABLE set), or where wezterm.enabled is
// the literal true (over ssh, where none of these is forwarded). Inside
// tmux only the setting turns it on, and every sequence is wrapped for
// tmux's passthrough (allow-passthrough on); inside GNU screen only the
// setting, unwrapped.
package wezterm
