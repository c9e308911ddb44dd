// Package testenv holds what every test package of this module does before
// it runs.
package testenv

import (
	"os"
	"strings"
)

// ClearHerdr unsets every HERDR_* variable of the test process. Every
// TestMain calls it first thing (after herdrtest.Main, where the binary may
// serve as the emulated herdr), so that a developer running the suite inside
// a Herdr pane can never have a test claim, report to or release that live
// pane: adapters read the environment they are given, and nothing in the
// suite inherits the developer's pane.
//
// Since the tmux adapter is built in, a test that attaches a registry
// would also find a developer's tmux pane, so ClearHerdr calls [ClearTmux]
// too: every TestMain that already calls it is safe inside tmux as well.
func ClearHerdr() {
	ClearTmux()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(strings.ToUpper(k), "HERDR_") {
			os.Unsetenv(k)
		}
	}
}

// ClearTmux unsets TMUX, TMUX_PANE and every other TMUX* variable of the
// test process, for the same reason as ClearHerdr: a developer running the
// suite inside tmux must never have a test set options on, or release, the
// pane they are typing in. Tests that need tmux start a private server and
// hand its environment to the adapter explicitly.
func ClearTmux() {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(strings.ToUpper(k), "TMUX") {
			os.Unsetenv(k)
		}
	}
}

// SoakEnv, set to "1", makes the tests that repeat a race-prone scenario
// run ten times as many iterations ([Iterations]).
const SoakEnv = "PANESTATE_SOAK"

// Iterations returns n, or ten times n when SoakEnv is "1": how many times
// a test repeats a scenario whose failure depends on timing.
func Iterations(n int) int {
	if os.Getenv(SoakEnv) == "1" {
		return 10 * n
	}
	return n
}
