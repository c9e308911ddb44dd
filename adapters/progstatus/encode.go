package progstatus

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Revision is the revision of the Program Status Protocol this package
// writes. Its grammar, alphabets and limits are those of revision 0.4.
const Revision = "0.4"

// The limits of revision 0.4, in bytes. A terminal that follows the
// protocol discards a whole report that breaks any of them.
const (
	maxSequence   = 4096 // ESC ] through the terminator
	maxKey        = 16
	maxApp        = 32
	maxID         = 128
	maxIDSegment  = 32
	maxIDDepth    = 8
	maxMsgEncoded = 2732
	maxMsgDecoded = 2048
)

// nameBytes is the alphabet of a name (an app, each segment of an id);
// valueBytes that of any value.
const (
	nameBytes  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-"
	valueBytes = nameBytes + ",/="
)

// The sequence's frame. BEL ends it, as Charm's encoder (and so every
// Bubble Tea program, and Claude Code 2.1.328) ends it, so that the bytes
// of a record are the same whichever of them writes it; the protocol
// accepts BEL and ST alike, and a terminal that ignores OSC 7501 consumes
// a BEL-terminated OSC string silently, as it does the window title's.
const (
	seqStart = "\x1b]7501;"
	seqEnd   = "\x07"
)

// pair is one key=value of a report. text marks msg, whose value is UTF-8
// text that the encoder base64-encodes.
type pair struct {
	key, value string
	text       bool
}

// errEncode is wrapped by every error of encode. Only a bug can produce
// one: every value the adapter encodes is a fixed text or a name that
// [appName] made valid; the tests check each.
var errEncode = errors.New("progstatus: report would break revision " + Revision)

// encode returns the report of pairs as one OSC 7501 sequence, or an error
// when it would break any rule of revision 0.4 that makes a terminal drop
// it: a key over its limit or outside the name alphabet, a value outside
// its alphabet or over its limit, an id that is not names joined by single
// slashes, text that is not UTF-8 or holds a control character, a sequence
// over 4096 bytes.
func encode(pairs ...pair) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(seqStart)
	for i, p := range pairs {
		if len(p.key) == 0 || len(p.key) > maxKey || !isName(p.key) {
			return nil, fmt.Errorf("%w: key %q", errEncode, p.key)
		}
		v := p.value
		if p.text {
			if !safeText(v) || len(v) > maxMsgDecoded {
				return nil, fmt.Errorf("%w: %s is not %d bytes of UTF-8 without control characters", errEncode, p.key, maxMsgDecoded)
			}
			v = base64.StdEncoding.EncodeToString([]byte(v))
		}
		if err := checkValue(p.key, v); err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(p.key)
		b.WriteByte('=')
		b.WriteString(v)
	}
	b.WriteString(seqEnd)
	if b.Len() > maxSequence {
		return nil, fmt.Errorf("%w: %d bytes, over %d", errEncode, b.Len(), maxSequence)
	}
	return b.Bytes(), nil
}

// checkValue checks one value against its alphabet and its key's limit.
func checkValue(key, v string) error {
	if v == "" || !only(v, valueBytes) {
		return fmt.Errorf("%w: %s=%q is outside the value alphabet", errEncode, key, v)
	}
	switch key {
	case "app":
		if len(v) > maxApp || !isName(v) {
			return fmt.Errorf("%w: app %q is not a name of at most %d bytes", errEncode, v, maxApp)
		}
	case "id":
		if !validID(v) {
			return fmt.Errorf("%w: id %q", errEncode, v)
		}
	case "msg":
		if len(v) > maxMsgEncoded {
			return fmt.Errorf("%w: msg is %d bytes encoded, over %d", errEncode, len(v), maxMsgEncoded)
		}
	}
	return nil
}

// validID reports whether id is at most 8 names of at most 32 bytes each,
// joined by single slashes, 128 bytes in all.
func validID(id string) bool {
	if len(id) > maxID {
		return false
	}
	depth := 0
	for seg := range strings.SplitSeq(id, "/") {
		depth++
		if depth > maxIDDepth || len(seg) > maxIDSegment || !isName(seg) {
			return false
		}
	}
	return true
}

// isName reports whether s is a non-empty name.
func isName(s string) bool { return s != "" && only(s, nameBytes) }

// only reports whether every byte of s is in set.
func only(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// safeText reports whether s is UTF-8 with no control character (C0, DEL
// or C1), the rule for title and msg.
func safeText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// appName makes the host's application name a valid name: each run of
// bytes outside the name alphabet (spaces, slashes, any non-ASCII) becomes
// one '-', leading and trailing dashes are dropped, and the result is cut to
// 32 bytes. An application name with nothing left is "agent".
func appName(app string) string {
	b := make([]byte, 0, len(app))
	dash := false
	for i := 0; i < len(app); i++ {
		c := app[i]
		if strings.IndexByte(nameBytes, c) < 0 {
			dash = len(b) > 0
			continue
		}
		if dash {
			b = append(b, '-')
			dash = false
		}
		b = append(b, c)
	}
	if len(b) > maxApp {
		b = bytes.TrimRight(b[:maxApp], "-")
	}
	if len(b) == 0 {
		return "agent"
	}
	return string(b)
}

// wrapTmux wraps seq for tmux's DCS passthrough: ESC P tmux; then seq
// with every ESC doubled, then ST. tmux forwards the inner sequence to the
// terminal it runs in when the pane's allow-passthrough option is on, and
// drops it otherwise.
func wrapTmux(seq []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x1bPtmux;")
	for _, c := range seq {
		if c == 0x1b {
			b.WriteByte(0x1b)
		}
		b.WriteByte(c)
	}
	b.WriteString("\x1b\\")
	return b.Bytes()
}
