package registry

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// The hand-written name checks accept exactly what their patterns do.
func TestNameChecksMatchTheirPatterns(t *testing.T) {
	checks := []struct {
		name    string
		pattern *regexp.Regexp
		check   func(string) bool
	}{
		{"adapter name", regexp.MustCompile(namePattern), validName},
		{"app", regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`), validApp},
	}
	const alphabet = "azAZ09._-@ %\x00é"
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := []string{"", "a", "herdr", "tmux-2", "no_op", "A", "0", ".a", "a.", "-", "a b"}
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
