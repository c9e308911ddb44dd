//go:build unix

package herdr

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/session"
)

// oldCLI writes a Herdr CLI that says, in `status server --json`, that the
// server is 0.9.3, but refuses a literal "--" with a usage error (exit 2),
// as a Herdr CLI before 0.9.2 does; it logs each call's argv, one line per
// call, to the returned file.
func oldCLI(t *testing.T) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "herdr"), filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo "$*" >> '` + log + `'
if [ "$1" = status ]; then
	echo '{"status":"running","running":true,"version":"0.9.3","protocol":22}'
	exit 0
fi
for a in "$@"; do
	if [ "$a" = "--" ]; then
		echo "unknown option: --" >&2
		exit 2
	fi
done
exit 0
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

// TestResumeRefusedByUsageError: a CLI that refuses the resume argv's "--"
// as an unknown option (exit 2) does not make the state reports fail: the
// report is sent again without the argv, and resume is off for the claim.
func TestResumeRefusedByUsageError(t *testing.T) {
	bin, log := oldCLI(t)
	f := newFixtureOn(t, "cli", herdrtest.Options{})
	f.env = f.env.With(EnvBin, bin)
	f.host.Identity = session.Identity{Resume: resumeCmd}
	a := f.open(t)
	for _, r := range []adapter.Report{working, blocked, idle} {
		if err := a.Report(t.Context(), r); err != nil {
			t.Fatalf("Report(%v) = %v", r, err)
		}
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for line := range strings.Lines(string(data)) {
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] != "pane" {
			continue
		}
		state := fields[slices.Index(fields, "--state")+1]
		if slices.Contains(fields, "--") {
			state += " with resume"
		}
		got = append(got, state)
	}
	want := []string{"working", "working with resume", "blocked", "idle"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("reports (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(f.diags.kinds(), map[adapter.Kind]int{adapter.KindInvalidValue: 1}); diff != "" {
		t.Errorf("diagnostics (-got +want):\n%s", diff)
	}
	if got := a.Explain()["resume"]; got != "refused by herdr" {
		t.Errorf("Explain resume %q, want refused by herdr", got)
	}
}
