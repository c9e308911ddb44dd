package adaptertest

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* variable, so that a developer running the
// tests inside a real Herdr pane is safe, and checks for leaked goroutines.
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}
