// Package terminal shows the agent's state on the terminal itself, with the
// ConEmu progress sequence OSC 9;4 that Ghostty, iTerm2, Windows Terminal,
// WezTerm, ConEmu, mintty and VS Code's terminal turn into a progress bar,
// a tab spinner or a taskbar indicator, and, when asked, one desktop
// notification when the agent starts waiting for the person.
//
// The registry lists this adapter among the built-ins under the name
// "terminal". Users read docs/terminal.md; this comment is for hosts and
// for whoever maintains the adapter.
//
// # Where it writes
//
// Only to the writer the host hands over as registry.Options.Terminal
// ([adapter.Params].Terminal): the host's TUI owns the screen and decides
// where escape sequences may go. Without one the adapter is inactive and
// says so. Every sequence is written in a single Write call, only from
// Report and Release, and none of them changes a cell of the screen.
//
// # When it is active
//
// [Driver.Open] (and [Driver.Check]) return an error wrapping
// [adapter.ErrInactive], having started nothing, unless:
//
//   - the host handed over a terminal;
//   - the host is an interactive root session ([builtin.CheckHost]);
//   - terminal.enabled is not the literal false; and
//   - the captured environment names a terminal known to show the states
//     this adapter sends (TERM_PROGRAM with a recent enough
//     TERM_PROGRAM_VERSION for Ghostty, iTerm2, WezTerm, VS Code and mintty;
//     WT_SESSION for Windows Terminal; ConEmuPID or ConEmuANSI=ON for
//     ConEmu; TERM_PROGRAM=tmux with TERM_PROGRAM_VERSION 3.7 or later
//     inside tmux, which keeps OSC 9;4 as #{pane_pb_state} and forwards
//     it), outside an older tmux (TMUX) and Herdr (HERDR_ENV=1), whose own
//     adapters report there, and outside GNU screen (STY) and zellij
//     (ZELLIJ), and TERM is not dumb.
//
// The last condition is waived when terminal.enabled is the literal true:
// the person has said their terminal shows it. The version floors matter:
// iTerm2 before 3.6.6 (and its 3.6 nightlies built before 2025-10-31) and
// WezTerm builds before 2025-02-10 show an OSC 9;4 sequence as a
// desktop notification reading "4;3". The adapter is enabled by default
// ([Driver.Settings]) because this check keeps it inert everywhere
// else.
//
// The registry decides "enabled" and passes a literal true from a settings
// layer as [adapter.Params].Forced, which is what waives the condition.
//
// # What it writes
//
//	state     sequence                     shows
//	working   ESC ] 9 ; 4 ; 3 ESC \        indeterminate progress
//	blocked   ESC ] 9 ; 4 ; 4 ; 100 ESC \  paused (warning) state, full bar
//	idle      ESC ] 9 ; 4 ; 0 ESC \        nothing
//	Release   ESC ] 9 ; 4 ; 0 ESC \        nothing
//
// Blocked uses the paused state rather than the error state because the
// agent has not failed: it waits. Terminals draw the paused state in a
// warning colour (Ghostty on Linux stops the bar's pulsing instead) and keep
// red for failures. The value 100 is there because iTerm2 3.6.6 ignores a
// paused state without one.
//
// With terminal.notify on, entering blocked also writes one notification:
// OSC 9 for iTerm2, OSC 777 for Ghostty, WezTerm and Windows Terminal,
// OSC 99 for kitty. Its text is the application label (control characters
// and ';' removed) and the report's fixed message, e.g. "mychat: Waiting
// for approval"; nothing the agent said can reach it, since a report's
// message is a number from a fixed set.
//
// # Refresh
//
// Ghostty clears a progress state it has not seen for 15 seconds, so the
// adapter is an [adapter.Refresher]: while working or blocked,
// [Adapter.RefreshInterval] returns terminal.refresh (default
// [DefaultRefresh], clamped to [MinRefresh, MaxRefresh]) and the registry
// delivers the report again after that much quiet. When idle it returns 0
// and no timer exists. A refresh writes the progress sequence again and
// never a notification.
package terminal
