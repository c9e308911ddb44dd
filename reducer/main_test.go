package reducer_test

import (
	"os"
	"strings"
	"testing"
)

// TestMain clears every HERDR_* variable so that a developer running the
// tests inside a real Herdr pane is safe.
func TestMain(m *testing.M) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "HERDR_") {
			os.Unsetenv(k)
		}
	}
	os.Exit(m.Run())
}
