// Package optional calls the optional interfaces of package adapter
// ([adapter.Releaser], [adapter.Closer], [adapter.SessionAware],
// [adapter.Refresher], [adapter.Detailer], [adapter.PaneOwner] on adapters;
// [adapter.SettingsOwner], [adapter.EnvScrubber], [adapter.Checker],
// [adapter.Previewer] on drivers), each with the fallback its interface documents, so that its
// callers never type-assert.
//
// It is the registry's machinery (and adaptertest's, and the in-tree
// adapters' tests'): an adapter author implements the interfaces and never
// calls these functions, which is why they are not part of package adapter.
// Each function is as safe for concurrent use as the method it calls.
package optional
