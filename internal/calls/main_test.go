package calls_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* and TMUX* variable, as every test package
// of this module does, and checks for leaked goroutines (context.AfterFunc
// starts one when Close cancels).
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	testenv.ClearTmux()
	goleak.VerifyTestMain(m)
}
