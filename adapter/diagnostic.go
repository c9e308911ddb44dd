package adapter

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Kind classifies a [Diagnostic].
type Kind string

// Diagnostic kinds.
const (
	// KindSpawnFailed: the workspace's program could not be started (missing,
	// not executable, no permission).
	KindSpawnFailed Kind = "spawn_failed"
	// KindTimeout: a call did not finish before its deadline and was killed.
	KindTimeout Kind = "timeout"
	// KindProtocolRejected: the workspace refused a call (non-zero exit, an
	// error code such as server_not_running or protocol_mismatch).
	KindProtocolRejected Kind = "protocol_rejected"
	// KindStaleOwner: an adapter that lost its pane to a successor tried to
	// report or release; nothing was sent.
	KindStaleOwner Kind = "stale_owner"
	// KindUnsupported: the adapter defers to another reporter, or cannot work
	// in this environment.
	KindUnsupported Kind = "unsupported"
	// KindAdapterPanic: the adapter panicked; the registry recovered and
	// stopped it.
	KindAdapterPanic Kind = "adapter_panic"
	// KindInvalidValue: a value (a session id, a setting) was unusable and
	// was dropped.
	KindInvalidValue Kind = "invalid_value"
	// KindPersistFailed: state the adapter keeps on disk could not be
	// written; reporting goes on.
	KindPersistFailed Kind = "persist_failed"
)

// MaxDetail is the most bytes a [Diagnostic]'s Detail holds.
const MaxDetail = 256

// Diagnostic is a typed, bounded account of something that went wrong in an
// adapter. Diagnostics are for the person running the host (logs, Explain);
// they never become errors of the agent.
type Diagnostic struct {
	Adapter string `json:"adapter"` // the adapter's name: its driver's key
	Kind    Kind   `json:"kind"`
	Detail  string `json:"detail"` // at most MaxDetail bytes of valid UTF-8, one line
}

// NewDiagnostic returns a diagnostic whose detail is formatted with
// fmt.Sprintf and bounded: control characters become spaces, invalid UTF-8
// is replaced and the text is cut to [MaxDetail] bytes.
func NewDiagnostic(adapter string, kind Kind, format string, args ...any) Diagnostic {
	return Diagnostic{Adapter: adapter, Kind: kind, Detail: Bound(fmt.Sprintf(format, args...), MaxDetail)}
}

// String renders the diagnostic as "adapter: kind: detail".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s", d.Adapter, d.Kind, d.Detail)
}

// Bound returns s as one line of valid UTF-8 of at most n bytes, safe to
// print on a terminal: control characters (C0, DEL, C1, so ESC and BEL too)
// and the bidirectional controls that reorder what a terminal shows
// (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) become
// spaces, invalid bytes become U+FFFD, and a cut text ends in "…".
func Bound(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidiControl(r) {
			r = ' '
		}
		size := utf8.RuneLen(r)
		if b.Len()+size > n {
			cut := b.String()
			for len(cut)+len("…") > n && len(cut) > 0 {
				_, sz := utf8.DecodeLastRuneInString(cut)
				cut = cut[:len(cut)-sz]
			}
			return cut + "…"
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isBidiControl reports whether r is one of Unicode's bidirectional
// formatting characters, which can make a terminal show text in an order
// other than the bytes' (the "Trojan Source" trick).
func isBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
