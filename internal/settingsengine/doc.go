// Package settingsengine reads panestate's settings from the host
// application's JSON settings files, merges them in layers and keeps them
// current while the files change. It is the registry's machinery: a host sets
// settings.Options (registry.Options.Settings) and reads settings.FileStatus
// in the registry's Explain; the registry turns the first into [Options] and
// runs [Load], a [Reader] or a [Watcher].
//
// # Layers
//
// Three layers, later wins: the built-in defaults (each adapter's own), the
// global file (by default ~/.<app>/agent/settings.json) and the project file
// (by default <project>/.<app>/settings.json). Objects merge recursively;
// scalars and arrays replace. koanf does the merging; the library reads the
// bytes itself so it can hash them, cap their size, strip a UTF-8 BOM and
// keep the last good content of each file.
//
// # Trust
//
// The project layer applies only when the host says the project is trusted,
// through [Options.Trust] or an Atomic-style trust store ([TrustStore],
// [Options.TrustFile]). Without either, projects are untrusted. Trust is never
// read from the project's own files, and an untrusted project file is not
// read at all; [Settings.Files] says why it was ignored. A trust store that
// cannot be read or parsed means untrusted (it fails closed, unlike a
// settings file it has no last good content), and [Settings.Files] lists it
// with [FileStatus.TrustStore] set.
//
// The host's trust function runs on a goroutine of the library's, bounded by
// [TrustTimeout]: a panic in it is recovered and a call that does not return
// in time is left running; either way the project counts as untrusted, with
// one warning, and [Watcher.Close] never waits for it. [Options.Trust] says
// what happens to a call that hangs.
//
// # Whose keys
//
// The files belong to the host and hold its other settings. Only the
// [Section]s given in [Options.Sections] are read; every other top-level key
// is ignored silently. <section>.enabled decides whether an adapter runs: only
// the JSON literals true and false count, null means unset, and anything else
// is a [Warning] and is ignored. Inside an owned section an unknown key is a
// warning too. [Settings.Section] gives each adapter its own merged section as
// canonical JSON; the adapter validates its keys.
//
// # One-shot and live
//
// [Load] reads the files once; a [Reader] reads them afresh on every
// [Reader.Read], for a caller that reads again and again, and does not wait
// again for a trust function that hangs. [Watch] reads them once and then
// follows changes with one fsnotify watcher on the files' directories (or
// their nearest existing ancestors, and every directory along a symbolic
// link chain). After
// a trailing debounce ([DefaultDebounce], 20ms) it re-reads every file, and
// calls back only when the effective settings change. A file that
// disappears or becomes empty counts only after a grace period, so editors
// that save by delete-and-recreate do not switch adapters off and on. A
// malformed file keeps its last good content and is reported once per
// content, and a file in error is read again on a capped backoff
// ([Options.RetryAfter], doubling, at most 30s) until it reads; a change of
// permissions counts as a change. Where adding a watch fails, the file is
// polled. Every PollInterval the watcher also checks that each watched
// directory is still the one its name leads to, and watches the new one
// after an ancestor was renamed and the path created again.
//
// Only regular files (or symbolic links to them) are read: a FIFO, a device
// or a socket in place of a file is an error ("not a regular file"), and on
// unix the file is opened without blocking, so it cannot hang a reload.
//
// No settings key names a program to run or a path to execute.
package settingsengine
