package terminal_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* variable, so that a developer running the
// tests inside a real Herdr pane is safe, and checks for leaked goroutines
// (the conformance suite and the end-to-end tests start some).
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
