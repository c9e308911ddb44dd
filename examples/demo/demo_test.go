package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	// The emulated Herdr re-executes this test binary as its herdr CLI.
	herdrtest.Main()
	// A developer may run the tests inside a real Herdr pane: never touch it.
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}

// wantTimeline is the script's timeline: for each step, its event, the
// reduced report column and what Herdr shows.
var wantTimeline = []timelineRow{
	{"session attached (registry.Attach)", "idle     (quiescent)  [pane claimed]", "idle"},
	{"agent turn starts, calls a tool", "working  (executing)", "working"},
	{`approval prompt: "Run migrations?"`, `blocked  (awaiting_input) "Waiting for approval"`, "blocked"},
	{"person approves, tool runs", "working  (executing)", "working"},
	{`agent starts workflow "migrate"`, "working  (executing)  [unchanged, not resent]", "working"},
	{"agent settles, workflow runs on", "working  (executing)  [unchanged, not resent]", "working"},
	{"workflow needs the person", `blocked  (awaiting_input) "Workflow needs attention"`, "blocked"},
	{"project: herdr.enabled = false", "herdr adapter off  [pane released]", "(no agent)"},
	{"person answers, workflow goes on", "working  (automatic_continuation)  [not sent: off]", "(no agent)"},
	{"project: herdr.enabled = true", "working  (automatic_continuation)  [re-claimed]", "working"},
	{"workflow stream drops out", "-        (unknown) no new report  [last one stands]", "working"},
	{"stream back: workflow completed", "idle     (quiescent)", "done *"},
	{"session ends (registry.Detach)", "detached  [pane released]", "(no agent)"},
}

type timelineRow struct{ Event, Report, Herdr string }

var timelineLine = regexp.MustCompile(`^  +\d+\.\d{3}s  (.{34})  (.{52})  (.+)$`)

// timeline extracts the timeline rows from the demo's output.
func timeline(t *testing.T, out string) []timelineRow {
	t.Helper()
	var rows []timelineRow
	for line := range strings.Lines(out) {
		m := timelineLine.FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil {
			continue
		}
		rows = append(rows, timelineRow{strings.TrimSpace(m[1]), strings.TrimSpace(m[2]), strings.TrimSpace(m[3])})
	}
	return rows
}

func runDemo(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// isolate points the process's home, state and temporary directories at
// empty directories, and returns a check that those named in keep (all of
// them when empty) are still empty.
func isolate(t *testing.T, keep ...string) (checkEmpty func()) {
	t.Helper()
	dirs := map[string]string{"HOME": t.TempDir(), "XDG_STATE_HOME": t.TempDir(), "TMPDIR": t.TempDir()}
	for k, v := range dirs {
		t.Setenv(k, v)
	}
	if len(keep) == 0 {
		keep = slices.Collect(maps.Keys(dirs))
	}
	return func() {
		t.Helper()
		for _, k := range keep {
			dir := dirs[k]
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				t.Errorf("the demo left %s in $%s", e.Name(), k)
			}
		}
	}
}

func TestDemo(t *testing.T) {
	checkEmpty := isolate(t)
	code, out, errOut := runDemo(t)
	if code != exitOK {
		t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr = %q, want nothing without -v", errOut)
	}
	if diff := cmp.Diff(timeline(t, out), wantTimeline); diff != "" {
		t.Errorf("timeline (-got +want):\n%s\noutput:\n%s", diff, out)
	}
	for _, want := range []string{
		"herdr calls   7 report-agent, 2 release-agent, 2 ping; 0 failed", // a ping per claim: the socket transport

		"reports       7 delivered, 2 unchanged (not resent), 1 unknown (nothing to send), 0 coalesced, 0 failed",
		"diagnostics   0",
		`first call    socket pane.report_agent {"pane_id":"w1:p1","source":"custom:demo","agent":"demo","state":"idle","seq":`,
		`approval      socket pane.report_agent {"pane_id":"w1:p1","source":"custom:demo","agent":"demo","state":"blocked","message":"Waiting for approval","seq":`,
		`* Herdr shows a finished turn as "done"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\noutput:\n%s", want, out)
		}
	}
	// The prompt's title appears in the timeline (the host event) but in no
	// argument sent to Herdr.
	for line := range strings.Lines(out) {
		if (strings.Contains(line, "herdr pane ") || strings.Contains(line, "socket pane.")) && strings.Contains(line, approvalTitle) {
			t.Errorf("a herdr call carries the prompt title: %s", line)
		}
	}
	checkEmpty()
}

// TestRealAgainstEmulator plays --real with an emulated Herdr standing in
// for the real one: the pane is read through `herdr agent get`, as in a real
// pane.
func TestRealAgainstEmulator(t *testing.T) {
	// -real keeps the adapter's sequence state in the user's state
	// directory, as it should; home and temporary directory stay clean.
	checkEmpty := isolate(t, "HOME", "TMPDIR")
	h := herdrtest.StartT(t, herdrtest.Options{Dir: t.TempDir()})
	h.Setenv(t)
	code, out, errOut := runDemo(t, "--real", "-pace=0")
	if code != exitOK {
		t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if diff := cmp.Diff(timeline(t, out), wantTimeline); diff != "" {
		t.Errorf("timeline (-got +want):\n%s\noutput:\n%s", diff, out)
	}
	for _, want := range []string{"diagnostics   0", "(a real Herdr keeps no call log"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\noutput:\n%s", want, out)
		}
	}
	calls, err := h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, c := range calls {
		count[c.Command]++
	}
	if count["pane report-agent"] != 7 || count["pane release-agent"] != 2 || count["agent get"] == 0 {
		t.Errorf("herdr calls by command = %v, want 7 report-agent, 2 release-agent and some agent get", count)
	}
	checkEmpty()
}

// TestStepNotReached checks that a step that does not show in time fails
// the demo with a message that says which step and why: here Herdr rejects
// every report.
func TestStepNotReached(t *testing.T) {
	isolate(t)
	h := herdrtest.StartT(t, herdrtest.Options{Dir: t.TempDir()})
	h.Setenv(t)
	if err := h.SetFault(herdrtest.Fault{FailFirst: 1000}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runDemo(t, "--real", "-pace=0", "-timeout=2s") // the step is never reached; 2s leaves room for the first failed call on a loaded machine
	if code != exitFailed {
		t.Errorf("exit code %d, want %d", code, exitFailed)
	}
	if rows := timeline(t, out); len(rows) != 0 {
		t.Errorf("timeline has %d rows, want none", len(rows))
	}
	for _, want := range []string{
		`demo: step 1, "session attached (registry.Attach)": waiting for report idle (quiescent) delivered and shown: not reached within 2s`,
		"registry: herdr adapter active, last delivered none",
		"herdr shows: (no agent)",
		"diagnostic: herdr: protocol_rejected",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q\nstderr:\n%s", want, errOut)
		}
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{name: "real outside herdr", args: []string{"--real"}, wantCode: exitUsage,
			wantStderr: "demo: --real must run inside a Herdr pane (HERDR_ENV is not 1)"},
		{name: "unknown flag", args: []string{"-nope"}, wantCode: exitUsage, wantStderr: "flag provided but not defined: -nope"},
		{name: "extra argument", args: []string{"now"}, wantCode: exitUsage, wantStderr: `demo: unexpected argument "now"`},
		{name: "zero timeout", args: []string{"-timeout=0"}, wantCode: exitUsage, wantStderr: "demo: -timeout must be positive"},
		{name: "help", args: []string{"-h"}, wantCode: exitOK, wantStderr: "usage: go run ./examples/demo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runDemo(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d", code, tt.wantCode)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			if !strings.Contains(errOut, tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, tt.wantStderr)
			}
		})
	}
}

func TestInterrupted(t *testing.T) {
	checkEmpty := isolate(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var out, errOut bytes.Buffer
	if code := run(ctx, nil, &out, &errOut); code != exitInterrupted {
		t.Errorf("exit code %d, want %d\nstderr:\n%s", code, exitInterrupted, errOut.String())
	}
	if !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("stderr = %q, want it to say interrupted", errOut.String())
	}
	checkEmpty()
}

func TestArgv(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "plain", args: []string{"pane", "report-agent", "w1:p1", "--seq", "12"}, want: "herdr pane report-agent w1:p1 --seq 12"},
		{name: "space", args: []string{"--message", "Waiting for approval"}, want: "herdr --message 'Waiting for approval'"},
		{name: "quote", args: []string{"it's"}, want: `herdr 'it'\''s'`},
		{name: "empty", args: []string{""}, want: "herdr ''"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(argv(tt.args), tt.want); diff != "" {
				t.Errorf("argv (-got +want):\n%s", diff)
			}
		})
	}
}

// Example plays the demo against the emulated Herdr and prints, for each
// step, the host event and what Herdr shows for the pane.
func Example() {
	var out bytes.Buffer
	if code := run(context.Background(), nil, &out, io.Discard); code != exitOK {
		fmt.Println("exit code", code)
		return
	}
	for line := range strings.Lines(out.String()) {
		if m := timelineLine.FindStringSubmatch(strings.TrimRight(line, "\n")); m != nil {
			fmt.Printf("%-34s -> %s\n", strings.TrimSpace(m[1]), strings.TrimSpace(m[3]))
		}
	}
	// Output:
	// session attached (registry.Attach) -> idle
	// agent turn starts, calls a tool    -> working
	// approval prompt: "Run migrations?" -> blocked
	// person approves, tool runs         -> working
	// agent starts workflow "migrate"    -> working
	// agent settles, workflow runs on    -> working
	// workflow needs the person          -> blocked
	// project: herdr.enabled = false     -> (no agent)
	// person answers, workflow goes on   -> (no agent)
	// project: herdr.enabled = true      -> working
	// workflow stream drops out          -> working
	// stream back: workflow completed    -> done *
	// session ends (registry.Detach)     -> (no agent)
}
