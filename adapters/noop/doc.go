// Package noop is an adapter that shows nothing anywhere, and the model to
// copy when writing an adapter for a new workspace.
//
// # Using it
//
// The registry lists this adapter among the built-ins under the name "noop".
// It is off unless selected, so attaching reporting outside any workspace
// still starts nothing; a host turns it on for dry runs and tests with the
// setting
//
//	{ "noop": { "enabled": true } }
//
// Once enabled it accepts every report, holds nothing, starts no goroutine,
// timer, subprocess or file, and never allocates while reporting.
//
// # As a template
//
// noop.go is short on purpose: it has every piece an adapter needs and
// nothing else. A [Driver] whose zero value is usable and whose Open decides
// whether the adapter applies here; an [Adapter] with the required Report and
// the optional Release and Close; compile-time guards naming each interface
// implemented; and a comment on each method saying what the registry expects
// of it. Copy the file into a package of its own, fill in Open and Report,
// and keep the guards. The tests show the other half: every adapter's tests
// call adaptertest.Run.
package noop
