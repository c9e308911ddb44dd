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
		"transport     setting auto, used socket; the server's ping: Herdr 0.8.2, protocol 20",
		"herdr calls   11 over the socket, 0 CLI processes: 2 ping, 7 report-agent, 2 release-agent; 0 failed",
		"reports       7 delivered, 2 unchanged (not resent), 1 unknown (nothing to send), 0 failed",
		"diagnostics   0",
		`* Herdr shows a finished turn as "done"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\noutput:\n%s", want, out)
		}
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^  first report  pane\.report_agent \{"pane_id":"w1:p1","source":"custom:demo","agent":"demo","state":"idle","seq":\d+,"agent_session_id":"demo-session-1","agent_session_path":"\$TMP/sessions/demo-session-1\.jsonl"\}$`),
		regexp.MustCompile(`(?m)^  approval      pane\.report_agent \{"pane_id":"w1:p1","source":"custom:demo","agent":"demo","state":"blocked","message":"Waiting for approval","seq":\d+\}$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("output has no line matching %s\noutput:\n%s", want, out)
		}
	}
	if strings.Contains(out, "resume ") {
		t.Errorf("output mentions resume, but the demo set no resume command\noutput:\n%s", out)
	}
	// The prompt's title appears in the timeline (the host event) but in no
	// request sent to Herdr.
	for line := range strings.Lines(out) {
		if strings.Contains(line, "pane.report_agent") && strings.Contains(line, approvalTitle) {
			t.Errorf("a request to Herdr carries the prompt title: %s", line)
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
	for _, want := range []string{
		"diagnostics   0",
		"(a real Herdr keeps no call log",
		"transport     setting auto, used socket; the server's ping: Herdr 0.8.2, protocol 20",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\noutput:\n%s", want, out)
		}
	}
	calls, err := h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	// The reporter's calls went over the socket; the demo's own looks at
	// the pane ran the CLI, as a person's would.
	count := map[string]int{}
	for _, c := range calls {
		count[string(c.Transport)+" "+c.Command]++
	}
	if count["socket ping"] != 2 || count["socket pane report-agent"] != 7 || count["socket pane release-agent"] != 2 ||
		count["cli agent get"] == 0 || len(count) != 4 {
		t.Errorf("herdr calls by transport and command = %v, want 2 ping, 7 report-agent, 2 release-agent over the socket and some agent get on the CLI", count)
	}
	checkEmpty()
}

// TestResume plays the session with a resume command against the emulator
// at both versions: at 0.9.3 the command reaches Herdr once per claim, each
// time right after a report that made the demo the pane's holder; at 0.8.2
// no request carries it.
func TestResume(t *testing.T) {
	const carries = `["demo","--resume","abc-1"]`
	tests := []struct {
		name    string
		version string
		want    []string // the summary's resume lines, in order
		calls   string
	}{
		{
			name:    "0.9.3 gets it after each claim",
			version: herdrtest.Version093,
			want: []string{
				"  resume        sent once per claim, after the pane was held (#n: the order Herdr received requests)",
				"                #2 report-agent idle holds the pane, then #3 carries resume_argv " + carries,
				"                #10 report-agent working holds the pane, then #11 carries resume_argv " + carries,
				"                Herdr keeps: demo --resume abc-1",
			},
			calls: "herdr calls   13 over the socket, 0 CLI processes: 2 ping, 9 report-agent, 2 release-agent; 0 failed",
		},
		{
			name:    "0.8.2 never gets it",
			version: herdrtest.Version082,
			want:    []string{"  resume        not sent: Herdr 0.8.2 predates 0.9.2; no request carried it"},
			calls:   "herdr calls   11 over the socket, 0 CLI processes: 2 ping, 7 report-agent, 2 release-agent; 0 failed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEmpty := isolate(t)
			code, out, errOut := runDemo(t, "-herdr-version", tt.version, "-resume", "abc-1")
			if code != exitOK {
				t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if diff := cmp.Diff(timeline(t, out), wantTimeline); diff != "" {
				t.Errorf("timeline (-got +want):\n%s\noutput:\n%s", diff, out)
			}
			var got []string
			inResume := false
			for line := range strings.Lines(out) {
				line = strings.TrimRight(line, "\n")
				switch {
				case strings.HasPrefix(line, "  resume        "):
					inResume = true
				case !strings.HasPrefix(line, "                "):
					inResume = false
				}
				if inResume {
					got = append(got, line)
				}
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("resume lines (-got +want):\n%s\noutput:\n%s", diff, out)
			}
			for _, want := range []string{
				"  resume    demo --resume abc-1 (session.Identity.Resume)",
				"reporter  app \"demo\": source custom:demo, agent label \"demo\"; host tui, with UI, root session abc-1",
				"transport     setting auto, used socket; the server's ping: Herdr " + tt.version,
				tt.calls,
				"diagnostics   0",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q\noutput:\n%s", want, out)
				}
			}
			checkEmpty()
		})
	}
}

// TestRealResume plays --real with a resume command against an emulated
// Herdr standing in for the real one, and reads the emulator's own log: at
// 0.9.3 every request that carried the command came right after a report
// of the demo's had been applied (the pane was held), and Herdr kept it; at
// 0.8.2 no request carried it.
func TestRealResume(t *testing.T) {
	tests := []struct {
		name      string
		version   string
		wantLine  string
		wantCalls int // requests that carried the resume argv
	}{
		{name: "0.9.3", version: herdrtest.Version093, wantLine: "  resume        delivered (the herdr adapter's Explain)", wantCalls: 2},
		{name: "0.8.2", version: herdrtest.Version082,
			wantLine: "  resume        not sent: Herdr 0.8.2 predates 0.9.2 (the herdr adapter's Explain: pending)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t, "HOME", "TMPDIR")
			h := herdrtest.StartT(t, herdrtest.Options{Dir: t.TempDir(), Version: tt.version})
			h.Setenv(t)
			code, out, errOut := runDemo(t, "--real", "-pace=0", "-resume", "abc-1")
			if code != exitOK {
				t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if !strings.Contains(out, tt.wantLine+"\n") {
				t.Errorf("output lacks %q\noutput:\n%s", tt.wantLine, out)
			}
			calls, err := h.Calls()
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(calls, func(a, b herdrtest.Call) int { return a.Arrival - b.Arrival })
			var carried int
			var lastApplied *herdrtest.Call
			for i, c := range calls {
				if c.ResumeArgv() != nil {
					carried++
					if diff := cmp.Diff(c.ResumeArgv(), []string{"demo", "--resume", "abc-1"}); diff != "" {
						t.Errorf("#%d resume argv (-got +want):\n%s", c.Arrival, diff)
					}
					if lastApplied == nil || lastApplied.Command != "pane report-agent" || lastApplied.ResumeArgv() != nil {
						t.Errorf("#%d carried the resume argv, but the last applied request before it was %+v, not a report that held the pane", c.Arrival, lastApplied)
					}
					if c.Code != "" || !c.Applied {
						t.Errorf("#%d with the resume argv: code %q, applied %t; want applied", c.Arrival, c.Code, c.Applied)
					}
				}
				if c.Arrival != 0 && c.Applied {
					lastApplied = &calls[i]
				}
			}
			if carried != tt.wantCalls {
				t.Errorf("%d requests carried the resume argv, want %d", carried, tt.wantCalls)
			}
			kept, ok := h.ResumeArgv(h.Pane)
			if want := tt.wantCalls > 0; ok != want {
				t.Errorf("Herdr keeps a resume argv: %t (%q), want %t", ok, kept, want)
			}
		})
	}
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
		{name: "unknown herdr version", args: []string{"-herdr-version=0.9.0"}, wantCode: exitUsage,
			wantStderr: `demo: -herdr-version "0.9.0": the emulator runs 0.8.2 or 0.9.3`},
		{name: "herdr version with real", args: []string{"-real", "-herdr-version=0.9.3"}, wantCode: exitUsage,
			wantStderr: "demo: -herdr-version sets the emulated Herdr's version; with -real the pane's own Herdr answers"},
		{name: "resume id a flag", args: []string{"-resume=--all"}, wantCode: exitUsage,
			wantStderr: `demo: -resume: session id "--all": use at most 64 letters`},
		{name: "resume id with a space", args: []string{"-resume=a b"}, wantCode: exitUsage,
			wantStderr: `demo: -resume: session id "a b": use at most 64 letters`},
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

func TestResumeSupported(t *testing.T) {
	tests := []struct {
		version string
		want    bool
	}{
		{"0.8.2", false},
		{"0.9.1", false},
		{"0.9.2-rc.1", false},
		{"0.9.2", true},
		{"0.9.3", true},
		{"0.10.0", true},
		{"1.0.0", true},
		{"0.9", false},
		{"(unknown)", false},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			if got := resumeSupported(tt.version); got != tt.want {
				t.Errorf("resumeSupported(%q) = %t, want %t", tt.version, got, tt.want)
			}
		})
	}
}
