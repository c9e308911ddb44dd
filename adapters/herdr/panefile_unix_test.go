//go:build unix

package herdr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// TestPaneFileRefused: a symbolic link planted at the pane file's
// predictable path, or a state directory open to others, is refused with
// one persist_failed diagnostic that says why; the link's target is never
// written, and reports still go out.
func TestPaneFileRefused(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, f *fixture) (victim string)
		want  string
	}{
		{name: "symlink at the pane file", want: "symbolic link", plant: func(t *testing.T, f *fixture) string {
			if err := os.MkdirAll(f.drv.StateDir, 0o700); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, paneFilePath(f)); err != nil {
				t.Fatal(err)
			}
			return victim
		}},
		{name: "state directory mode 0755", want: "mode 0755", plant: func(t *testing.T, f *fixture) string {
			if err := os.MkdirAll(f.drv.StateDir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(f.drv.StateDir, 0o755); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, herdrtest.Options{})
			victim := tt.plant(t, f)
			a := f.open(t)
			if err := a.Report(t.Context(), working); err != nil {
				t.Fatal(err)
			}
			if err := a.Report(t.Context(), blocked); err != nil {
				t.Fatal(err)
			}
			if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "blocked" {
				t.Errorf("status %q, want blocked: reporting must go on", info.AgentStatus)
			}
			d := f.diags.all()
			if len(d) != 1 || d[0].Kind != adapter.KindPersistFailed || !strings.Contains(d[0].Detail, tt.want) {
				t.Errorf("diagnostics %v, want one persist_failed saying %q", d, tt.want)
			}
			if victim != "" {
				if b, err := os.ReadFile(victim); err != nil || string(b) != "precious\n" {
					t.Errorf("the link's target now holds %q, %v", b, err)
				}
			}
		})
	}
}
