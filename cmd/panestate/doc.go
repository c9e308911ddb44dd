// Command panestate reports the state of coding agents that are not Go
// programs (Claude Code, Codex, Gemini CLI) to the terminal workspace they
// run in, through their hooks, and of any program through JSON lines.
//
//	panestate hook <agent>                 run as the agent's hook: read one event on stdin
//	panestate hook --print-config <agent>  print the hook configuration to paste
//	panestate install <agent>              add it to the agent's settings file (with a backup)
//	panestate events [-v] [--app NAME]     report the JSON-lines events protocol read on stdin
//	panestate doctor [flags]               why does my pane show nothing? (app panestate)
//
// Agents: claude-code, codex, gemini. Install it, from a clone of the
// repository, with
//
//	CGO_ENABLED=0 go install ./cmd/panestate
//
// into a directory on the PATH the agent runs its hooks with (once the
// module is published: go install
// github.com/panestate/panestate/cmd/panestate@latest, CGO_ENABLED=0 too).
//
// A plain go install builds with cgo where a C compiler is present: on
// Linux that binary is dynamically linked and each hook starts 1–3 ms
// slower; install, hook --print-config and doctor then say so.
//
// As the commands a person runs, hook --print-config and install never
// read stdin and exit 2 on a usage error.
// As a hook it always exits 0 and writes nothing to stdout. The first hook
// of an agent process in a pane starts a detached bridge process that holds
// the registry; later hooks hand it their event over a private Unix socket
// and exit without waiting for the workspace. The bridge releases the pane
// at the session's end, when the agent process dies, after 12 hours without
// a hook, or on SIGINT or SIGTERM. Outside every Herdr or tmux pane, in a
// plain terminal tab, the bridge is keyed on the agent's terminal and
// reports to it (the terminal and progstatus reporters), started only when
// one of them would write there; where none would, the hook starts
// nothing. On Windows the hook reads its event and does nothing else.
//
// Settings: ~/.panestate/agent/settings.json for every agent, and
// ~/.panestate/agent/<agent>.json for one. docs/agents.md in the repository
// has the details: what to paste, what the pane shows for each event, what
// cannot be known.
package main
