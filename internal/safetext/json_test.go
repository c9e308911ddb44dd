package safetext_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/safetext"
)

// JSON escapes what encoding/json leaves raw and a terminal would act on,
// and the text still decodes to the same value.
func TestJSONEscapesWhatATerminalActsOn(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "C1 CSI", in: "a\u009bb", want: `"a\u009bb"`},
		{name: "bidi overrides and isolates", in: "\u202eevil\u2066\u200f\u061c", want: `"\u202eevil\u2066\u200f\u061c"`},
		{name: "C0 as encoding/json escapes it", in: "\x1b]0;t\x07", want: `"\u001b]0;t\u0007"`},
		{name: "plain text and other non-ASCII unchanged", in: "é ✓ 日本", want: `"é ✓ 日本"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := safetext.JSON(data)
			if diff := cmp.Diff(string(got), tt.want); diff != "" {
				t.Errorf("JSON(%q) (-got +want):\n%s", data, diff)
			}
			var back string
			if err := json.Unmarshal(got, &back); err != nil || back != tt.in {
				t.Errorf("decodes to %q, %v; want %q", back, err, tt.in)
			}
		})
	}
}
