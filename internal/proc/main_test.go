package proc_test

import (
	"os"
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* and TMUX* variable, as every test package
// of this module does.
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	testenv.ClearTmux()
	os.Exit(m.Run())
}
