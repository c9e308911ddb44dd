// Package registry is the single entry point a chat service uses to report
// its agent's state to whatever terminal workspace it runs in: [New], then
// [Registry.Attach] to the session's store, and [Registry.Detach] at the end.
// The chat service never learns which workspace is listening, and imports
// only registry, session and (for settings files and trust) settings.
//
// # Use
//
// Build a [Registry] with [New], [Registry.Attach] it to a session.Source
// (usually a session.Store the chat service feeds), and [Registry.Detach] it
// when the session ends. The first choice for the end is the host's own
// signal context: Detach gives every adapter its whole release budget
// whatever its ctx, so the pane is handed back however main ends:
//
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	reg, err := registry.New(registry.Options{App: "mychat", Host: host, Logger: log})
//	...
//	if err := reg.Attach(ctx, store); err != nil { ... }
//	defer reg.Detach(ctx) // releases even though ctx is done by then
//	runChat(ctx)
//
// A host that handles no signal at all can instead call
// [Registry.DetachOnSignal] after Attach: it detaches on SIGINT or SIGTERM
// and then ends the process by that signal.
//
// Outside every workspace Attach starts nothing: no goroutine, no timer, no
// subprocess, not even a settings watcher. The one exception is an adapter
// that a settings edit could turn on (the terminal adapter, given
// [Options].Terminal, in a terminal it does not know: "enabled": true
// forces it): then the settings are watched, so that the edit applies live.
//
// # Adapters
//
// Workspaces are supported by drivers, one per adapter name. A registry runs
// [Options].Drivers, by default the built-in ones ([Builtin], listed in this
// package's builtin.go), so importing registry is enough. A host adds an
// adapter of its own to Builtin() and passes the map; a test passes only its
// recorder. The settings files then turn each one on or off.
// [Registry.ScrubEnv] asks this registry's drivers which variables name a
// pane, for the environment of the agent's tool subprocesses.
//
// # Delivery
//
// For every running adapter the registry keeps one goroutine and a one-slot
// mailbox, so no adapter waits for another. A change in the source fills the
// mailbox (a newer change merges into a pending one: latest wins); the
// goroutine pulls the newest snapshot, reduces it (package reducer) and
// calls the adapter's Report, unless the report equals the last one
// delivered. A change within 50 ms of the start of the last delivery waits
// for that window to end, merged with the changes after it, so that the
// cost never follows the change rate; one after a quiet window goes out at
// once. Publishing never waits on an adapter, however slow. A failed
// delivery is retried with backoff (0.5 s doubling, capped at 30 s) for as
// long as it is the newest state: the registry never gives up. An adapter
// that implements adapter.Refresher gets the current report again after
// each quiet interval it asks for. A panicking adapter is recovered,
// reported as an adapter_panic diagnostic and stopped; the chat service
// goes on.
//
// # Lifecycle
//
// Each adapter is in one [Lifecycle]: not attached, active, disabled,
// inactive (it does not apply here), open failed, panicked, unreleased,
// or stale owner (it runs, but a newer claim holds its pane: it sends
// nothing until that claim lets go, then takes the pane back).
// What a settings change does to each adapter (open, keep, reopen with its
// new section, stop, mark disabled, or nothing) is one pure decision over
// four facts: its lifecycle, whether it is enabled, whether its section
// changed, and whether it applies. Detach preempts an Attach or a settings
// change in progress, and an adapter being replaced by a successor that is
// not running yet is released like any other. Every wait is bounded by one
// release budget per adapter ([Options].ReleaseTimeout, 1.5 s by default):
// Detach withdraws every delivery in flight (adapter.Withdrawn: dropped if
// not sent, waited for if it may have reached the workspace, abandoned at
// half the budget), releases all adapters in parallel, and leaves an
// adapter whose release failed open for the next Detach to try again. An
// adapter and its successor never call the workspace at once.
//
// # Faults
//
// A panic in an adapter is recovered, reported as an adapter_panic
// diagnostic, and the adapter is stopped and released. So are the host's
// own faults: a session.Source whose Snapshot panics (Explain says so), a
// panic in Subscribe (an error from Attach) or in the function it returns
// (an error from Detach), a Logger whose writer panics (the line is lost).
//
// # Settings
//
// Each adapter is turned on or off by "<name>.enabled" in the settings files
// (package settings): the global file, then the project file when the host
// trusts the project. A change is applied live: a disabled adapter is
// released and closed; an enabled one is opened and reports the current
// state at once; a change to an adapter's other keys opens a new one, swaps
// it in and closes the old one (keeping the old one if the new one fails to
// open).
//
// # Diagnosis
//
// [Registry.Explain] says, for every adapter, whether it is enabled and by
// which settings layer, whether it applies here and if not why, what it last
// delivered, its counters, and its diagnostics: one [DiagnosticRecord] per
// kind. The registry counts every diagnostic an adapter emits, and passes
// the first of each kind per claim (one Open) on to the log and
// Options.OnDiagnostic; the record holds the last one passed on and the
// count.
// An [Explanation] is plain data for encoding/json.
//
// # Child processes
//
// [Registry.ScrubEnv] removes every workspace's variables from an
// environment, for the tool subprocesses the agent starts: a nested agent
// must never claim or release its parent's pane.
package registry
