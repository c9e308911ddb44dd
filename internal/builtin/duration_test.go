package builtin

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want time.Duration
		err  string
	}{
		{"absent is the default", ``, 5 * time.Second, ""},
		{"null is the default", ` null `, 5 * time.Second, ""},
		{"a duration string", `"750ms"`, 750 * time.Millisecond, ""},
		{"milliseconds", `1500`, 1500 * time.Millisecond, ""},
		{"fractional milliseconds", `0.5`, 500 * time.Microsecond, ""},
		{"a negative number is kept", `-5`, -5 * time.Millisecond, ""},
		{"a huge number saturates", `1e300`, math.MaxInt64, ""},
		{"a hugely negative number saturates", `-1e300`, math.MinInt64, ""},
		{"not a duration", `"soon"`, 0, `timeout "soon" is not a duration (want e.g. "5s" or a number of milliseconds)`},
		{"a bad string", `"\x"`, 0, "timeout: invalid character 'x' in string escape code"},
		{"neither", `true`, 0, "timeout must be a duration string or a number of milliseconds: json: cannot unmarshal bool into Go value of type float64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDuration("timeout", json.RawMessage(tt.raw), 5*time.Second)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("ParseDuration(%s) error = %v, want %q", tt.raw, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseDuration(%s) = %v, %v; want %v, nil", tt.raw, got, err, tt.want)
			}
		})
	}
}
