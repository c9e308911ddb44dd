package claim_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/claim"
	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* and TMUX* variable, as every test package
// of this module does, and checks for leaked goroutines (the OnFree watch).
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	testenv.ClearTmux()
	claim.TakerChild() // in a child that takes a pane file over, killed midway
	goleak.VerifyTestMain(m)
}
