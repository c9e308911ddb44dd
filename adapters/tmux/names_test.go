package tmux

import (
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

// The hand-written checks accept exactly what their patterns do.
func TestNameChecksMatchTheirPatterns(t *testing.T) {
	const alphabet = "azAZ09._-%@ #;\x00"
	inputs := []string{"", "%", "%0", "%12345678901", "%1234567890", "panestate", "a", ".a"}
	testenv.AgreesWithPattern(t, "prefix", `^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`, validPrefix, alphabet, inputs...)
	testenv.AgreesWithPattern(t, "label", `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, validLabel, alphabet, inputs...)
	testenv.AgreesWithPattern(t, "pane id", `^%[0-9]{1,10}$`, validPaneID, alphabet, inputs...)
}
