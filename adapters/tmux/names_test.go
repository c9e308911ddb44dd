package tmux

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// The hand-written checks accept exactly what their patterns do.
func TestNameChecksMatchTheirPatterns(t *testing.T) {
	checks := []struct {
		name    string
		pattern *regexp.Regexp
		check   func(string) bool
	}{
		{"prefix", regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`), validPrefix},
		{"label", regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`), validLabel},
		{"pane id", regexp.MustCompile(`^%[0-9]{1,10}$`), validPaneID},
	}
	const alphabet = "azAZ09._-%@ #;\x00"
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := []string{"", "%", "%0", "%12345678901", "%1234567890", "panestate", "a", ".a"}
	for range 20000 {
		b := make([]byte, rng.IntN(70))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(b))
	}
	for _, c := range checks {
		for _, in := range inputs {
			if got, want := c.check(in), c.pattern.MatchString(in); got != want {
				t.Errorf("%s %q: check says %t, pattern %s says %t", c.name, in, got, c.pattern, want)
			}
		}
	}
}
