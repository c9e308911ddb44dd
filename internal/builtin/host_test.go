package builtin

import (
	"errors"
	"strings"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

func TestCheckHost(t *testing.T) {
	tests := []struct {
		name string
		host session.Host
		want []string // substrings of the error; nil = interactive
	}{
		{"interactive root", session.Host{Interactive: true, Root: true}, nil},
		{"zero", session.Host{}, []string{"not interactive", "not the root session"}},
		{"not interactive", session.Host{Root: true}, []string{"not an interactive root session: the host is not interactive"}},
		{"subagent", session.Host{Interactive: true}, []string{"not an interactive root session: the host is not the root session"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckHost(tt.host)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckHost = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, adapter.ErrInactive) {
				t.Fatalf("CheckHost = %v, want adapter.ErrInactive", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}
