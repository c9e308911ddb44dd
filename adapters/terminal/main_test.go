package terminal_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

// TestMain clears every HERDR_* variable, so that a developer running the
// tests inside a real Herdr pane is safe, and checks for leaked goroutines
// (the conformance suite and the end-to-end test start some).
func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}
