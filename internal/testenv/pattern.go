package testenv

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// AgreesWithPattern fails t for every input on which check and the
// regular expression pattern disagree: the inputs given, then 20,000
// random strings of up to 69 bytes drawn from alphabet (the same ones on
// every run). It holds a check written by hand, for speed at start, to the
// pattern its documentation gives.
func AgreesWithPattern(t testing.TB, name, pattern string, check func(string) bool, alphabet string, inputs ...string) {
	t.Helper()
	re := regexp.MustCompile(pattern)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(70))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		if got, want := check(in), re.MatchString(in); got != want {
			t.Errorf("%s %q: check says %t, pattern %s says %t", name, in, got, pattern, want)
		}
	}
}
