// Package embedding holds, as compiled and runnable examples, the code that
// README.md and docs/embedding.md show a chat service writing. Its examples
// import exactly what a chat service imports: registry, session and, to
// configure the settings files and trust, settings.
//
// It has no code of its own; `go test ./examples/embedding` builds and runs
// the examples, so a snippet that no longer compiles, or no longer does what
// the text says, fails the tests.
package embedding
