package wezterm_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* and TMUX* variable and checks for leaked
// goroutines (every Write runs on a goroutine of its own).
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}
