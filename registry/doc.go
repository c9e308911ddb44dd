// Package registry is the single entry point a chat service uses to report
// its agent's state to whatever terminal workspace it runs in. The chat
// service never learns which workspace is listening.
//
// # Use
//
// Build a [Registry] with [New], [Registry.Attach] it to a session.Source
// (usually a session.Store the chat service feeds), and [Registry.Detach] it
// when the session ends:
//
//	reg, err := registry.New(registry.Options{App: "mychat", Host: host, Logger: log})
//	...
//	if err := reg.Attach(ctx, store); err != nil { ... }
//	defer reg.Detach(context.Background())
//	defer reg.DetachOnSignal()()
//
// Outside every workspace Attach starts nothing: no goroutine, no timer, no
// subprocess, not even a settings watcher.
//
// # Adapters
//
// Workspaces are supported by drivers registered with [Register], as
// database/sql does it. The built-in ones (herdr, noop) are listed in this
// package's builtin.go, so importing registry is enough. A third-party
// adapter registers itself from its own package's init function; [Drivers]
// lists them all.
//
// # Delivery
//
// For every running adapter the registry keeps one goroutine and a one-slot
// mailbox. A change in the source fills the mailbox (a newer change merges
// into a pending one: latest wins); the goroutine pulls the newest snapshot,
// reduces it (package reducer) and calls the adapter's Report, unless the
// report equals the last one delivered. Publishing never waits on an
// adapter, however slow. A failed delivery forgets "last delivered", so the
// same state is tried again, and is retried with backoff (0.5 s doubling to
// 8 s, five tries) while nothing newer arrives. A panicking adapter is
// recovered, reported as an adapter_panic diagnostic and stopped; the chat
// service goes on.
//
// # Settings
//
// Each adapter is turned on or off by "<name>.enabled" in the settings files
// (package settings): the global file, then the project file when the host
// trusts the project. A change is applied live: a disabled adapter is
// drained, released and closed; an enabled one is opened and reports the
// current state at once; a change to an adapter's other keys opens a new one,
// swaps it in and closes the old one (keeping the old one if the new one
// fails to open).
//
// # Diagnosis
//
// [Registry.Explain] says, for every adapter, whether it is enabled and by
// which settings layer, whether it applies here and if not why, what it last
// delivered, and its diagnostics and counters.
//
// # Child processes
//
// [ScrubEnv] removes every registered workspace's variables from an
// environment, for the tool subprocesses the agent starts: a nested agent
// must never claim or release its parent's pane.
package registry
