package tmux

import "testing"

// onTakeBack calls f each time a's take-back has run, until the test ends.
func onTakeBack(t testing.TB, a *Adapter, f func()) {
	prev := testTookBack
	testTookBack = func(b *Adapter) {
		if b == a {
			f()
		} else if prev != nil {
			prev(b)
		}
	}
	t.Cleanup(func() { testTookBack = prev })
}
