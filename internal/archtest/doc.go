// Package archtest holds no code, only a test that keeps panestate's import
// graph the one the design fixes. For every package of the module it lists
// the module packages and the outside modules (by module path, golang.org/x
// included) that the package may import, per platform where build tags
// differ, and the standard-library packages it must not import; it checks
// them in enough build configurations (Linux, macOS, Windows, FreeBSD,
// Plan 9, the race build) that every non-test file is read in at least
// one, and fails when a file is built in none of them; and it
// checks the design's "never" rules over every path of imports: session is
// a leaf, adapter knows nothing of settings or the registry, adapters import
// adapter and session, the reducer does no I/O, settings never imports the
// registry, only the registry ties everything together, hosts import no
// adapter package but the herdrtest kit, and test kits stay out of shipped
// code.
//
// A package without a rule fails the test, so a new package comes with its
// rule. Every failure names the rule it breaks. The checker itself is tested
// on synthetic package data, one forbidden import at a time.
//
// It is an ordinary test: `go test ./...` (and so CI) fails on a breach;
// `go build` does not run it.
package archtest
