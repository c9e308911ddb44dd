package cmdrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/panestate/panestate/adapter"
)

// The range of a "timeout" setting; see [ParseTimeout].
const (
	MinTimeout = 100 * time.Millisecond
	MaxTimeout = 60 * time.Second
)

// ParseTimeout reads an adapter's "timeout" setting: a Go duration string
// ("2s", "750ms") or a JSON number of milliseconds. Absent or null means
// [DefaultTimeout]. A value outside [MinTimeout, MaxTimeout] (negative
// included) is clamped, and clamped says how, for an invalid_value
// diagnostic; it is "" otherwise. Any other value is an error, for the
// adapter to return from Open with its own prefix.
func ParseTimeout(raw json.RawMessage) (d time.Duration, clamped string, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return DefaultTimeout, "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, "", fmt.Errorf("timeout: %w", err)
		}
		d, err = time.ParseDuration(s)
		if err != nil {
			return 0, "", fmt.Errorf("timeout %q is not a duration (want e.g. \"5s\" or a number of milliseconds)", adapter.Bound(s, 40))
		}
	} else {
		var ms float64
		if err := json.Unmarshal(raw, &ms); err != nil {
			return 0, "", fmt.Errorf("timeout must be a duration string or a number of milliseconds: %w", err)
		}
		switch {
		case ms < 0:
			d = -1
		case ms > float64(math.MaxInt64/int64(time.Millisecond)):
			d = math.MaxInt64
		default:
			d = time.Duration(ms * float64(time.Millisecond))
		}
	}
	switch {
	case d < MinTimeout:
		return MinTimeout, fmt.Sprintf("timeout %s is below %s; using %s", d, MinTimeout, MinTimeout), nil
	case d > MaxTimeout:
		return MaxTimeout, fmt.Sprintf("timeout %s is above %s; using %s", d, MaxTimeout, MaxTimeout), nil
	}
	return d, "", nil
}
