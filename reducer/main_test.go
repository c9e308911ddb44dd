package reducer_test

import (
	"os"
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* variable so that a developer running the
// tests inside a real Herdr pane is safe.
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	os.Exit(m.Run())
}
