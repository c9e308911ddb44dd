package safetext

import (
	"bytes"
	"fmt"

	"github.com/panestate/panestate/adapter"
)

// JSON returns the JSON text data with every rune [adapter.Bound] would
// clean that encoding/json leaves as it is (C1 controls, the bidirectional
// controls) written as a \uXXXX escape: the same JSON value, safe to print
// on a terminal. encoding/json escapes C0 controls itself, and such runes
// occur only inside strings, so data needs no parsing.
func JSON(data []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(data))
	for _, r := range string(data) {
		if r >= 0x80 && adapter.Bound(string(r), 8) == " " {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.Bytes()
}
