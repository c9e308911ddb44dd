package registry

import (
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

// The hand-written name checks accept exactly what their patterns do.
func TestNameChecksMatchTheirPatterns(t *testing.T) {
	const alphabet = "azAZ09._-@ %\x00é"
	inputs := []string{"", "a", "herdr", "tmux-2", "no_op", "A", "0", ".a", "a.", "-", "a b"}
	testenv.AgreesWithPattern(t, "adapter name", namePattern, validName, alphabet, inputs...)
	testenv.AgreesWithPattern(t, "app", `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, validApp, alphabet, inputs...)
}
