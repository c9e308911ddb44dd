// Command demo plays one scripted chat session through panestate and shows,
// step by step, what a Herdr pane displays. It needs no setup:
//
//	go run ./examples/demo
//
// # What it shows
//
// The demo starts an emulated Herdr 0.8.2 (package herdrtest, a real server on
// a Unix socket) in a temporary
// directory, writes a global and a project settings file there, and feeds a
// session.Store the events a chat service would: an agent turn with tool work,
// an approval prompt, a background workflow that keeps the pane working after
// the agent settles, a workflow that needs the person, a workflow stream that
// drops out, and the final settle. Part-way through it turns herdr.enabled off
// in the project settings file and on again: the registry releases the pane
// and re-claims it live, without a restart.
//
// For every step it waits until the effect is visible (the registry delivered
// the report the reducer computed, and Herdr's `agent get` shows it), then
// prints one line: elapsed time, the host event, the reduced report, and what
// Herdr shows for the pane. A summary follows: the transport the reporter
// used (with the default settings, the socket, after a ping that gave the
// server's version and protocol), the requests Herdr received by transport
// and kind, the registry's counters, the diagnostics, and the first report
// and the approval exactly as Herdr received them (method and params): the
// approval carries the fixed "Waiting for approval", never the prompt's
// own text.
//
// # Resume
//
//	go run ./examples/demo -herdr-version 0.9.3 -resume demo-session-1
//
// runs the emulator as Herdr 0.9.3 and gives the session a resume command,
// ["demo", "--resume", "demo-session-1"] (session.Identity.WithResume). The
// summary lists each request that carried it (resume_argv) and the report
// before it that made the demo the pane's holder: Herdr accepts the command
// only from its holder, so it goes once per claim, right after the claim's
// first report. At the default 0.8.2 the summary says that none was sent.
//
// A step that does not reach its expected state within the deadline makes the
// demo exit 1, so that CI catches regressions.
//
// # Against a real Herdr
//
// Inside a real Herdr pane,
//
//	go run ./examples/demo --real
//
// plays the same script against the pane it runs in, one step every 1.5 s so
// that the sidebar can be watched. The settings files are still temporary, so
// the flip touches none of the user's files.
//
// # Flags
//
//	-real      use the real Herdr pane this runs in (HERDR_* environment)
//	-herdr-version V  the emulated Herdr's version: 0.8.2 (default) or 0.9.3
//	-resume ID play session ID and set its resume command (demo --resume ID)
//	-pace D    pause between steps (default 0, or 1.5s with -real)
//	-timeout D how long a step may take to show (default 3s)
//	-v         debug logs of the registry and adapters on stderr
package main
