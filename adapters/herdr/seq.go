package herdr

import "time"

// Sequence numbers.
//
// Herdr silently ignores a report whose seq is not above the last one it
// accepted from the same source in the same pane (CONTRACT §3.3). Every
// call therefore takes numbers from its owner (package internal/owner):
// max(clock ms, this process's last + 1, the pane file's + 1), written to
// the pane file before the call, under the file's lock that the call holds
// to its end, so that across every process in the pane the numbers rise in
// the order Herdr receives the calls; a call that went past a stopped
// holder is numbered above it, and Herdr ignores the holder's late call.

// clockMs returns t in milliseconds since the Unix epoch, 0 before it.
func clockMs(t time.Time) uint64 {
	if ms := t.UnixMilli(); ms > 0 {
		return uint64(ms)
	}
	return 0
}
