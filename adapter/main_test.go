package adapter

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* variable first, as every test package of this
// module does, so that a developer running the suite inside a Herdr pane can
// never have a test touch that live pane, and checks that no goroutine
// (AfterWithdraw's) outlives the tests.
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}
