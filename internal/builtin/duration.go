package builtin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/panestate/panestate/adapter"
)

// ParseDuration reads the duration setting key of an adapter's settings
// section from its raw value: a Go duration string ("5s", "750ms") or a
// JSON number of milliseconds, the form every built-in adapter takes for
// "timeout" and "refresh". Absent (empty) or null returns def. A number
// beyond the range of [time.Duration] saturates, so that a diagnostic about
// it names the nearest duration. Any other value is an error naming key,
// for Open to return with the adapter's own prefix. Range checks are the
// caller's.
func ParseDuration(key string, raw json.RawMessage, def time.Duration) (time.Duration, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return def, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("%s: %w", key, err)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%s %q is not a duration (want e.g. %q or a number of milliseconds)", key, adapter.Bound(s, 40), def.String())
		}
		return d, nil
	}
	var ms float64
	if err := json.Unmarshal(raw, &ms); err != nil {
		return 0, fmt.Errorf("%s must be a duration string or a number of milliseconds: %w", key, err)
	}
	switch limit := float64(math.MaxInt64 / int64(time.Millisecond)); {
	case ms < -limit:
		return math.MinInt64, nil
	case ms > limit:
		return math.MaxInt64, nil
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}
