package settingsengine

import (
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

// The hand-written section and key checks accept exactly what their
// patterns, the ones the errors quote, do.
func TestNameChecksMatchTheirPatterns(t *testing.T) {
	const alphabet = "azAZ09_-. \n%é"
	inputs := []string{"", "a", "herdr", "tmux-2", "no_op", "A", "Herdr", "0", "_a", "-", "a b", "a\n", "aZ9_-"}
	testenv.AgreesWithPattern(t, "section", sectionPattern, validSection, alphabet, inputs...)
	testenv.AgreesWithPattern(t, "key", keyPattern, validKey, alphabet, inputs...)
}
