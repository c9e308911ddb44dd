package progstatus_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* and TMUX* variable, so that a developer
// running the tests inside Herdr or tmux is safe, and checks for leaked
// goroutines (every Write runs on a goroutine of its own).
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	code := m.Run()
	testenv.RemoveChat() // what the end-to-end tests built
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
