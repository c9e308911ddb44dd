// Package progstatus reports the agent's state to the terminal itself with
// the Program Status Protocol, OSC 7501 (revision 0.4), which iTerm2 turns
// into the tab's status and libghostty parses. The sequence travels through
// the pty, so it reaches the terminal on the person's desk from an agent
// run over ssh or inside a container, where no workspace socket reaches.
//
// The registry lists this adapter among the built-ins under the name
// "progstatus". Users read docs/progstatus.md; this comment is for hosts
// and for whoever maintains the adapter.
//
// # Where it writes
//
// Only to the writer the host hands over as registry.Options.Terminal
// ([adapter.Params].Terminal), as the terminal adapter does. Every sequence
// is one Write call, made only from Report and Release, and none of them
// changes a cell of the screen. The Write runs on a goroutine of its own,
// so a terminal that stopped reading (a full pty, Ctrl-S) holds up that
// goroutine, not Report beyond its ctx; the next write waits for it, so
// sequences never interleave.
//
// # When it is active
//
// [Driver.Open] (and [Driver.Check]) return an error wrapping
// [adapter.ErrInactive], having started nothing, when the host handed over
// no terminal, when the host is not an interactive root session
// ([builtin.CheckHost]), inside a Herdr pane (HERDR_ENV=1; Herdr 0.9 does
// not read OSC 7501) and with TERM=dumb. Otherwise it is active when:
//
//  1. the host ran the probe ([probe.Run]) before its TUI took the
//     terminal, and the terminal answered the query: the host hands the
//     result over as the environment variable [probe.EnvVar]
//     ("PANESTATE_PROGSTATUS=1", [probe.Result.Env]) in
//     registry.Options.Env or its own environment. "0" keeps the adapter
//     off unless forced;
//  2. the environment names a terminal whose own source or tests show the
//     support, from the first version that has it (no terminal qualifies
//     yet: see docs/progstatus.md); or
//  3. progstatus.enabled is the literal true in a settings layer
//     ([adapter.Params].Forced).
//
// Inside tmux (TMUX set) only the third applies: tmux drops OSC 7501 and
// does not pass the query's answer back. There every sequence is wrapped
// in tmux's DCS passthrough (ESC P tmux; ... ESC \, each ESC doubled),
// which tmux forwards to the terminal it runs in only with
// allow-passthrough on; Explain says so. Inside GNU screen, too, only the
// setting turns it on. Inside zellij (ZELLIJ, ZELLIJ_SESSION_NAME) and a
// Herdr 2 terminal (HC_TERMINAL_ID), which read OSC 7501 from their panes,
// the first or the third applies, and HERDR_ENV does not count.
//
// # What it writes
//
// One record, named after the application: the host's App made a valid
// name (bytes outside A-Z a-z 0-9 _ . + - become '-', cut to 32 bytes) is
// both the record's id and its app, in every report, since each report
// replaces its record completely. The bytes are those of Charm's encoder
// (ansi.SetProgramStatus) for the same record: its key order and its BEL.
//
//	report                  sequence (between ESC ] 7501 ; and BEL)
//	working                 state=working:id=<app>:app=<app>
//	blocked, approval       state=blocked:id=<app>:kind=permission:app=<app>:msg=<"Waiting for approval">
//	blocked, input          state=blocked:id=<app>:kind=question:app=<app>:msg=<"Waiting for input">
//	blocked, workflow       state=blocked:id=<app>:app=<app>:msg=<"Workflow needs attention">
//	idle after a turn       state=done:id=<app>:app=<app>
//	idle before any work    state=idle:id=<app>:app=<app>
//	Release (the goodbye)   state=clear:id=<app>
//
// msg is the base64 of the fixed text; no title is sent, and nothing the
// agent said can reach a sequence, since a report's message is a number
// from a fixed set. "After a turn" means: this adapter has seen a working
// or blocked report, or the report's reason says the turn completed or
// failed (a phase host). A report that maps to the record already sent
// writes nothing, so a done the person dismissed does not come back.
//
// The goodbye names the record: a bare state=clear would remove every
// record in the terminal, another program's too (a build in the
// background of the same shell), and the root record, which belongs to
// whoever owns the tab, is never written.
//
// # One writer per record
//
// A host whose UI writes program status itself sets [Driver].HostWrites
// (the adapter stays off) or [Driver].View (the adapter hands each
// [Status] to the host's View and writes nothing).
//
// # With the terminal adapter
//
// Both may report in one terminal, and do: OSC 9;4 drives the tab's
// progress indicator and OSC 7501 its status, and a terminal that reads
// both (iTerm2) reconciles them itself: its tests show a blocked record
// pausing an OSC 9;4 bar it did not set and handing it back.
//
// # Crash behaviour
//
// Nothing needs refreshing: a record stays until replaced. A terminal that
// follows the protocol drops working and blocked records when the
// program's command ends (iTerm2's tests show it), so a killed host leaves
// no spinner behind; a host that exits normally sends the goodbye.
package progstatus
