package adaptertest

import (
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain clears every HERDR_* variable, so that a developer running the
// tests inside a real Herdr pane is safe, and checks for leaked goroutines.
func TestMain(m *testing.M) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "HERDR_") {
			os.Unsetenv(k)
		}
	}
	goleak.VerifyTestMain(m)
}
