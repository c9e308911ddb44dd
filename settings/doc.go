// Package settings holds what a host sets about panestate's settings files
// ([Options], passed as registry.Options.Settings), and what the registry
// says about them.
//
// A host passes [Options] as registry.Options.Settings: where the files are,
// and whether the project may contribute (a trust function, or an
// Atomic-style trust store at [DefaultTrustFile]). The registry reads, merges
// and watches the files itself; registry.Registry.Explain reports each file as
// a [FileStatus], with the [Layer] it feeds and the [FileCondition] it was
// found in.
//
// # Layers
//
// Three layers, later wins: the built-in defaults (each adapter's own), the
// global file (by default ~/.<app>/agent/settings.json) and the project file
// (by default <project>/.<app>/settings.json). Objects merge recursively;
// scalars and arrays replace. Each adapter owns one top-level section named
// after it; <section>.enabled decides whether the adapter runs (only the JSON
// literals true and false count). Every other top-level key belongs to the
// host and is ignored.
//
// # Trust
//
// The project layer applies only when the host says the project is trusted,
// through [Options.Trust] or a trust store ([Options.TrustFile]). Without
// either, projects are untrusted. Trust is never read from the project's own
// files, and an untrusted project file is not read at all; its [FileStatus]
// says why it was ignored. A trust store that cannot be read or parsed means
// untrusted, and is listed with [FileStatus.TrustStore] set.
//
// # Live files
//
// Unless registry.Options.StaticSettings is set, the registry follows changes
// to the files: 20 ms after the last change it re-reads them and applies the
// new settings. A file that disappears or becomes empty counts only after
// half a second, so editors that save by delete-and-create do not switch
// adapters off and on. A malformed file keeps its last good content
// ([FileStatus.Stale]) and is reported once per content. Only regular files
// of at most 1 MiB are read, and no settings key names a program to run or a
// path to execute.
package settings
