package testenv

import (
	"bytes"
	"runtime"
	"testing"
	"time"
)

// WaitNoGoroutineIn waits until no goroutine of the process has fn (a
// function name as stack traces print it, such as
// "owner.(*Owner).watch") on its stack, and fails t if one still does
// after a bound meant only for a broken build. It polls, as goleak does: a
// goroutine's end has no channel to wait on.
func WaitNoGoroutineIn(t testing.TB, fn string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := runtime.Stack(buf, true)
		if !bytes.Contains(buf[:n], []byte(fn)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a goroutine in %s still runs:\n%s", fn, buf[:n])
		}
		time.Sleep(5 * time.Millisecond)
	}
}
