package progstatus_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

// afterTests holds what the tests leave for TestMain to remove (the chat
// binary the end-to-end tests build once).
var afterTests []func()

// TestMain clears every HERDR_* and TMUX* variable, so that a developer
// running the tests inside Herdr or tmux is safe, and checks for leaked
// goroutines (every Write runs on a goroutine of its own).
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	code := m.Run()
	for _, f := range afterTests {
		f()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
