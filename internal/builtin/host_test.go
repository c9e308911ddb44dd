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
		{"tui root with ui", session.Host{Mode: session.ModeTUI, HasUI: true, Role: session.RoleRoot}, nil},
		{"zero", session.Host{}, []string{"mode is unset", "no UI", "role is unset"}},
		{"print", session.Host{Mode: session.ModePrint, HasUI: true, Role: session.RoleRoot}, []string{"mode is print, not tui"}},
		{"rpc", session.Host{Mode: session.ModeRPC, HasUI: true, Role: session.RoleRoot}, []string{"mode is rpc"}},
		{"no ui", session.Host{Mode: session.ModeTUI, Role: session.RoleRoot}, []string{"no UI"}},
		{"subagent", session.Host{Mode: session.ModeTUI, HasUI: true, Role: session.RoleSubagent}, []string{"role is subagent, not root"}},
		{"workflow stage", session.Host{Mode: session.ModeTUI, HasUI: true, Role: session.RoleWorkflowStage}, []string{"role is workflow-stage"}},
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
			if !errors.Is(err, adapter.ErrInactive) || !errors.Is(err, session.ErrNotInteractive) {
				t.Fatalf("CheckHost = %v, want adapter.ErrInactive and session.ErrNotInteractive", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}
