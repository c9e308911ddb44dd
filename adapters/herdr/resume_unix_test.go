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
	f.host.Identity = withResume(session.Identity{}, resumeCmd...)
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
	if got := a.Details()["resume"]; got != "refused by herdr" {
		t.Errorf("Explain resume %q, want refused by herdr", got)
	}
}

// TestResumeNotSentOnAStaleStatus: with the cli transport, a claim whose
// `herdr status server --json` fails does not go by an earlier claim's
// answer: the resume argv is not sent to a server whose version is not
// known now.
func TestResumeNotSentOnAStaleStatus(t *testing.T) {
	bin, log := oldCLI(t)
	// This CLI accepts "--"; from the second status on, it says no server
	// runs.
	script, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	flag := filepath.Join(t.TempDir(), "asked")
	script = []byte(strings.Replace(string(script), `if [ "$a" = "--" ]; then`, `if false; then`, 1))
	script = []byte(strings.Replace(string(script), `if [ "$1" = status ]; then`,
		`if [ "$1" = status ] && [ -e '`+flag+`' ]; then
	echo '{"status":"not_running","running":false,"version":null,"protocol":null}'
	exit 0
fi
if [ "$1" = status ]; then
	touch '`+flag+`'`, 1))
	if err := os.WriteFile(bin, script, 0o755); err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, "cli", herdrtest.Options{})
	f.env = f.env.With(EnvBin, bin)
	f.host.Identity = withResume(session.Identity{}, resumeCmd...)
	a := f.open(t)
	if err := a.Report(t.Context(), working); err != nil { // status: 0.9.3
		t.Fatal(err)
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := a.Report(t.Context(), idle); err != nil { // a new claim; status: none
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var resumes int
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, "--state idle") && strings.Contains(line, " -- ") {
			resumes++
		}
	}
	if resumes != 0 {
		t.Errorf("the second claim sent the resume argv %d times on a stale version:\n%s", resumes, data)
	}
	if got := a.Details()["server_version"]; got != "(unknown)" {
		t.Errorf("Explain server_version %q, want (unknown)", got)
	}
	if strings.Count(string(data), " -- ") != 1 {
		t.Errorf("want the first claim's resume argv delivered once:\n%s", data)
	}
	if d := f.diags.all(); len(d) != 0 {
		t.Errorf("diagnostics %v", d)
	}
}
