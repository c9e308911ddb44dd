package cmdrun

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/panestate/panestate/internal/builtin"
)

// The range of a "timeout" setting; see [ParseTimeout].
const (
	MinTimeout = 100 * time.Millisecond
	MaxTimeout = 60 * time.Second
)

// ParseTimeout reads an adapter's "timeout" setting with
// [builtin.ParseDuration]: a Go duration string ("2s", "750ms") or a JSON
// number of milliseconds. Absent or null means
// [DefaultTimeout]. A value outside [MinTimeout, MaxTimeout] (negative
// included) is clamped, and clamped says how, for an invalid_value
// diagnostic; it is "" otherwise. Any other value is an error, for the
// adapter to return from Open with its own prefix.
func ParseTimeout(raw json.RawMessage) (d time.Duration, clamped string, err error) {
	d, err = builtin.ParseDuration("timeout", raw, DefaultTimeout)
	switch {
	case err != nil:
		return 0, "", err
	case d < MinTimeout:
		return MinTimeout, fmt.Sprintf("timeout %s is below %s; using %s", d, MinTimeout, MinTimeout), nil
	case d > MaxTimeout:
		return MaxTimeout, fmt.Sprintf("timeout %s is above %s; using %s", d, MaxTimeout, MaxTimeout), nil
	}
	return d, "", nil
}
