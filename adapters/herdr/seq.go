package herdr

import "time"

// Sequence numbers.
//
// Herdr silently ignores a report whose seq is not above the last one it
// accepted from the same source in the same pane (CONTRACT §3.3). Every
// call therefore takes numbers reserved by its claim (package
// internal/claim): max(clock ms, this process's mark + 1, the pane file's
// mark + 1), written to the pane file before the call, while no other
// call on the pane is in flight, so that across every process in the pane
// the numbers rise in the order Herdr receives the calls.

// clockMs returns t in milliseconds since the Unix epoch, 0 before it.
func clockMs(t time.Time) uint64 {
	if ms := t.UnixMilli(); ms > 0 {
		return uint64(ms)
	}
	return 0
}
