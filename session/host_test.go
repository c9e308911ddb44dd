package session

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHostInteractiveNamesEveryFailedCondition(t *testing.T) {
	tests := []struct {
		name string
		host Host
		want string // "" = interactive
	}{
		{"tui root with ui", Host{Mode: ModeTUI, HasUI: true, Role: RoleRoot}, ""},
		{"zero", Host{}, "not an interactive root session: mode is unset, not tui; the host has no UI; role is unset, not root"},
		{"print", Host{Mode: ModePrint, HasUI: true, Role: RoleRoot}, "not an interactive root session: mode is print, not tui"},
		{"subagent", Host{Mode: ModeTUI, HasUI: true, Role: RoleSubagent}, "not an interactive root session: role is subagent, not root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.host.Interactive()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Interactive() = %v, want nil", err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrNotInteractive) || err.Error() != tt.want {
				t.Fatalf("Interactive() = %v, want %q wrapping ErrNotInteractive", err, tt.want)
			}
		})
	}
}

func TestArgvRoundTripsAndStaysComparable(t *testing.T) {
	tests := []struct {
		name  string
		words []string
	}{
		{"none", nil},
		{"one empty word", []string{""}},
		{"several", []string{"mychat", "--resume", "abc def"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewArgv(tt.words...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(a.Words(), tt.words); diff != "" {
				t.Errorf("Words() (-got +want):\n%s", diff)
			}
			if a.Len() != len(tt.words) || a.IsZero() != (len(tt.words) == 0) {
				t.Errorf("Len() = %d, IsZero() = %t for %q", a.Len(), a.IsZero(), tt.words)
			}
			b := MustArgv(tt.words...)
			if a != b {
				t.Error("two Argv of the same words differ")
			}
			js, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			var back Argv
			if err := json.Unmarshal(js, &back); err != nil {
				t.Fatal(err)
			}
			if back != a {
				t.Errorf("JSON %s decoded to %q, want %q", js, back.Words(), a.Words())
			}
		})
	}
	if MustArgv("") == (Argv{}) {
		t.Error("one empty word must differ from no words")
	}
}

func TestNewArgvRefusesNUL(t *testing.T) {
	if _, err := NewArgv("ok", "bad\x00word"); err == nil {
		t.Fatal("NewArgv accepted a NUL byte")
	}
	var a Argv
	if err := json.Unmarshal([]byte(`["a","b\u0000"]`), &a); err == nil {
		t.Fatal("UnmarshalJSON accepted a NUL byte")
	}
	if err := json.Unmarshal([]byte(`"mychat --resume"`), &a); err == nil {
		t.Fatal("UnmarshalJSON accepted a string, want an array")
	}
}
