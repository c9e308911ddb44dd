package builtin

import (
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

func TestValidNameMatchesItsPattern(t *testing.T) {
	const alphabet = "azAZ09._-:@ %\x00é"
	inputs := []string{"", "a", "A", "0", ".a", "a.", "-", "a b", "abcd", "abcde"}
	testenv.AgreesWithPattern(t, "4, _-", `^[A-Za-z0-9][A-Za-z0-9_-]{0,3}$`, func(s string) bool { return ValidName(s, 4, "_-") }, alphabet, inputs...)
	testenv.AgreesWithPattern(t, "64, ._-", `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, func(s string) bool { return ValidName(s, 64, "._-") }, alphabet, inputs...)
	testenv.AgreesWithPattern(t, "1, none", `^[A-Za-z0-9]$`, func(s string) bool { return ValidName(s, 1, "") }, alphabet, inputs...)
}
