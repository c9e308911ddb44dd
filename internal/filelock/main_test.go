package filelock

import (
	"os"
	"strings"
	"testing"
)

// TestMain clears every HERDR_* variable first, as every test package of this
// module does, so that a developer running the suite inside a Herdr pane can
// never have a test touch that live pane.
func TestMain(m *testing.M) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "HERDR_") {
			os.Unsetenv(k)
		}
	}
	os.Exit(m.Run())
}
