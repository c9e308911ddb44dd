package builtin

import (
	"os"
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* variable first, as every test package of this
// module does, so that a developer running the suite inside a Herdr pane can
// never have a test touch that live pane.
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	os.Exit(m.Run())
}
