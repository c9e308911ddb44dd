package herdrtest

import (
	"os"
	"strings"
	"testing"
)

// ClearEnv unsets every HERDR_* and TMUX* variable of the test process for
// the rest of tb, with tb.Setenv, so that a developer who runs the tests
// inside a Herdr pane or a tmux session never has one claim, report to or
// release the pane they are typing in. Each variable comes back when the
// test ends. Like tb.Setenv it cannot be used in parallel tests (or their
// parents); a TestMain that runs parallel tests unsets the variables
// itself, before m.Run.
func ClearEnv(tb testing.TB) {
	tb.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if up := strings.ToUpper(k); strings.HasPrefix(up, "HERDR_") || strings.HasPrefix(up, "TMUX") {
			tb.Setenv(k, "") // restored by tb's cleanup
			os.Unsetenv(k)
		}
	}
}
