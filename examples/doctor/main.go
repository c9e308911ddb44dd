// Command doctor answers "why does my pane show nothing?". It prints what
// panestate's registry would do for a chat session started here, with these
// settings: for every adapter, whether it is enabled and by which settings
// file, whether it applies and if not why (which variable is missing, which
// host condition fails, which loaded reporter it defers to). Inside Herdr
// it also probes the installation: the binary, the server and the pane.
//
// Its first line says which application's settings files it read (--app,
// default chat: ~/.chat/agent/settings.json), and, when --app was not given,
// that --app checks another app. It ends with a verdict: the
// adapters that would report, or none and why. The verdict follows the
// probe: an adapter the registry would open does not count when the probe
// found that its workspace cannot take reports (no Herdr server running,
// HERDR_PANE_ID naming a pane that does not exist, an incompatible server,
// no tmux server or pane), nor does one whose settings would make it fail
// to open (a timeout that is not a duration: the registry asks the
// driver's settings validator, and shows the adapter as "open failed").
//
// It never attaches, so it never claims or releases a pane: the registry's
// Explain, called before Attach, reads the settings once and asks each
// adapter whether it would apply, without opening anything.
//
// # Running it
//
//	go run ./examples/doctor                       # would a tui root session of "chat" report here?
//	go run ./examples/doctor --app atomic --trust-project
//	go run ./examples/doctor --mode print          # ... and a print run?
//	go run ./examples/doctor --json | jq .explanation.adapters
//	go run ./examples/doctor -q && echo reporting  # in a script
//
// # Exit status
//
//	0  at least one adapter would report
//	1  no adapter would report (the output says why)
//	2  bad flags or options
//
// # Flags
//
// The host flags are those of the chat example, so that the same flags ask
// about the same session:
//
//	--app NAME               application name (default chat)
//	--project DIR            project root (default: the working directory)
//	--trust-project          apply the project's settings file
//	--mode tui|print|json|rpc  (default tui)
//	--no-ui                  the host has no UI
//	--role root|subagent|workflow-stage  (default root)
//	--loaded-extension PATH  an extension the host loaded (repeatable)
//
// and:
//
//	--json     print one JSON object: {"app": ..., "explanation": ...,
//	           "would_report": [...], "herdr_probe": ..., "tmux_probe": ...,
//	           "verdict": ...}
//	           (the explanation is registry.Explanation's JSON)
//	--probe    probe the workspaces the environment names (default on;
//	           --probe=false turns it off): Herdr inside Herdr (HERDR_ENV
//	           set, or always when --probe is given), tmux inside tmux
//	           (TMUX set)
//	-q         print nothing; only the exit status answers
//	--terminal ask as a host that hands its terminal to the registry
//	           (registry.Options.Terminal), as the chat example does when
//	           its stdout is a terminal (default: whether the doctor's
//	           stdout is one)
//
// # The Herdr probe
//
// The probe lists the HERDR_* variables present (with the values of those
// the reporter reads) and every one of those that is missing, says whether
// HERDR_BIN_PATH is an absolute path to an executable file (a relative one
// is never run: it could name a program of the working directory), and
// runs through it `herdr
// --version`, `herdr status --json` and, when a server runs, `herdr pane
// get $HERDR_PANE_ID`, with a 2 s deadline each. These only read: it never
// reports or releases.
//
// Before those it pings the server on HERDR_SOCKET_PATH itself (on Windows
// the named pipe `\\.\pipe\` followed by that path), as the reporter does
// once per claim, and prints the version and protocol of the answer and the
// transport the reporter would use with it. The rule comes from Explain:
// before Attach the herdr entry's details show the adapter's setup as its
// driver previews it (the herdr.transport setting, the socket protocols it
// speaks, the route it takes when the server answers in one of them and
// otherwise: with "auto" the socket for protocol 20 or 22, the CLI
// otherwise). The doctor only adds the server's answer: Explain never
// talks to the server, and the doctor never attaches.
//
// # The tmux probe
//
// Inside tmux (TMUX set) the doctor finds tmux in the environment's PATH and
// runs `tmux -S <socket from TMUX> list-panes -a -F '#{pane_id}'` against
// that server only, to see whether it is running and has the pane of
// TMUX_PANE. Then `show-options -A -t <pane> ; show-options -wA -t <pane>`
// reads the formats tmux draws for that pane (status-left, status-right,
// window-status-format, window-status-current-format and status-format[]
// while the status line is on, pane-border-format while pane-border-status
// is on) and names those that show an @<prefix>_ option (the tmux.prefix
// setting, panestate by default, as the tmux entry's details in Explain
// show it). When none does, the adapter would set
// the pane's state but nothing would show it: the probe says so and prints
// the lines of docs/tmux.md to add to ~/.tmux.conf, and the verdict says
// so too. That is not a problem of the exit status: tmux still takes the
// reports (exit status 0).
package main

import (
	"context"
	"os"

	"github.com/panestate/panestate/internal/doctor"
)

func main() {
	os.Exit(doctor.Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Environ(), doctor.IsTerminal(os.Stdout)))
}
