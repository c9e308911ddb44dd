package terminal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/adapters/terminal"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/session"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// tui is the host context of an interactive root session.
var tui = session.Host{Interactive: true, Root: true}

// tape records every Write call as one entry, so a test sees both the bytes
// and how they were split.
type tape struct {
	mu     sync.Mutex
	writes [][]byte
	err    error             // returned by Write when set
	failIf func([]byte) bool // with err set, the writes that fail; nil for all
}

func (t *tape) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil && (t.failIf == nil || t.failIf(p)) {
		return 0, t.err
	}
	t.writes = append(t.writes, bytes.Clone(p))
	return len(p), nil
}

// take returns the writes since the last take.
func (t *tape) take() [][]byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.writes
	t.writes = nil
	return w
}

func (t *tape) setErr(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.err = err
}

// diagnostics collects what an adapter sends to Params.Diagnose.
type diagnostics struct {
	mu   sync.Mutex
	list []adapter.Diagnostic
}

func (d *diagnostics) add(x adapter.Diagnostic) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = append(d.list, x)
}

func (d *diagnostics) all() []adapter.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]adapter.Diagnostic(nil), d.list...)
}

func params(out *tape, env adapter.Env, section string) adapter.Params {
	p := adapter.Params{Name: "terminal", App: "mychat", Env: env, Host: tui, Diagnose: func(adapter.Diagnostic) {}}
	if out != nil {
		p.Terminal = out
	}
	if section != "" {
		p.Settings = json.RawMessage(section)
		// As the registry does: "enabled" is not part of the section an
		// adapter sees; a literal true in it arrives as Params.Forced.
		var m map[string]json.RawMessage
		if json.Unmarshal(p.Settings, &m) == nil {
			if v, ok := m["enabled"]; ok {
				p.Forced = string(v) == "true"
				delete(m, "enabled")
				p.Settings, _ = json.Marshal(m)
			}
		}
	}
	return p
}

var (
	working         = adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}
	retrying        = adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonRetrying}
	approval        = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval}
	input           = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForInput}
	attention       = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonManualIntervention, Message: adapter.MessageWorkflowNeedsAttention}
	blockedNoText   = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput}
	idle            = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent}
	completed       = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonCompleted}
	goldenTerminals = []struct {
		name string
		env  adapter.Env
	}{
		{"ghostty", adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0"}},
		{"iterm2", adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.6"}},
		{"wezterm", adapter.Env{"TERM_PROGRAM=WezTerm", "TERM_PROGRAM_VERSION=20250210-093012-0a1b2c3d"}},
		{"windows-terminal", adapter.Env{"WT_SESSION=5b4e2f6a-0000-4000-8000-000000000000"}},
		{"conemu", adapter.Env{"ConEmuPID=4242", "ConEmuANSI=ON"}},
		{"mintty", adapter.Env{"TERM_PROGRAM=mintty", "TERM_PROGRAM_VERSION=3.7.4"}},
		{"vscode", adapter.Env{"TERM_PROGRAM=vscode", "TERM_PROGRAM_VERSION=1.97.0"}},
		{"konsole-forced", adapter.Env{"KONSOLE_VERSION=260400"}},
		{"kitty-forced", adapter.Env{"KITTY_WINDOW_ID=1", "TERM=xterm-kitty"}},
		{"tmux-forced", adapter.Env{"TMUX=/tmp/tmux-1000/default,4242,0", "TERM_PROGRAM=tmux"}},
		{"unknown-forced", adapter.Env{"TERM=xterm-256color"}},
	}
	goldenSettings = []struct {
		name    string
		section string
	}{
		{"default", ``},
		{"notify", `{"notify": true, "refresh": "3s"}`},
	}
)

// step is one call into the adapter in a golden scenario.
type step struct {
	what string
	do   func(ctx context.Context, a adapter.Adapter) error
	r    *adapter.Report // the report, for the refresh interval
}

func report(what string, r adapter.Report) step {
	return step{what: what, r: &r, do: func(ctx context.Context, a adapter.Adapter) error { return a.Report(ctx, r) }}
}

var (
	release = step{what: "release", do: optional.Release}
	closeA  = step{what: "close", do: optional.Close}
)

// scenarios cover every transition between the three states and the
// fresh adapter, refreshes, a change of message while blocked, release and
// the calls after close.
var scenarios = []struct {
	name  string
	steps []step
}{
	{"transitions", []step{
		report("fresh -> idle", idle),
		report("idle -> working", working),
		report("working -> working (refresh)", working),
		report("working -> working (another reason)", retrying),
		report("working -> blocked (approval)", approval),
		report("blocked -> blocked (refresh)", approval),
		report("blocked -> blocked (another message)", input),
		report("blocked -> working", working),
		report("working -> blocked (workflow)", attention),
		report("blocked -> idle", idle),
		report("idle -> idle (another reason)", completed),
		report("idle -> blocked (no message)", blockedNoText),
		report("blocked -> working", working),
		report("working -> idle", completed),
		release,
		closeA,
		report("report after close", working),
		release,
		closeA,
	}},
	{"fresh-blocked", []step{
		report("fresh -> blocked", approval),
		release,
		closeA,
	}},
	{"fresh-working", []step{
		report("fresh -> working", working),
		release,
		closeA,
	}},
}

// transcript runs every scenario on a fresh adapter opened with env and
// section, and renders what each step wrote, one Write per quoted string.
func transcript(t *testing.T, env adapter.Env, section string) string {
	t.Helper()
	var b strings.Builder
	ctx := t.Context()
	for _, sc := range scenarios {
		out := new(tape)
		a, err := terminal.Driver{}.Open(ctx, params(out, env, forceOn(section)))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		fmt.Fprintf(&b, "== %s\n", sc.name)
		for _, st := range sc.steps {
			err := st.do(ctx, a)
			fmt.Fprintf(&b, "%s:", st.what)
			for _, w := range out.take() {
				checkOneSequence(t, w)
				fmt.Fprintf(&b, " %q", w)
			}
			switch {
			case errors.Is(err, adapter.ErrClosed):
				b.WriteString(" (ErrClosed)")
			case err != nil:
				t.Fatalf("%s: %v", st.what, err)
			}
			if st.r != nil && err == nil {
				if d := optional.RefreshInterval(a, *st.r); d > 0 {
					fmt.Fprintf(&b, " [refresh after %s]", d)
				} else {
					b.WriteString(" [no refresh]")
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// forceOn adds "enabled": true to a section, for the golden runs: the
// forced terminals need it, and for the others it changes nothing.
func forceOn(section string) string {
	if section == "" {
		return `{"enabled": true}`
	}
	return `{"enabled": true, ` + strings.TrimPrefix(section, "{")
}

// checkOneSequence fails unless w is exactly one OSC sequence ended by ST,
// with nothing else in it: each sequence goes out in a single Write, and no
// Write holds more than one.
func checkOneSequence(t *testing.T, w []byte) {
	t.Helper()
	if !bytes.HasPrefix(w, []byte("\x1b]")) || !bytes.HasSuffix(w, []byte("\x1b\\")) {
		t.Errorf("write %q is not one OSC sequence ended by ST", w)
		return
	}
	body := w[2 : len(w)-2]
	if i := bytes.IndexFunc(body, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }); i >= 0 {
		t.Errorf("write %q has a control character inside the sequence", w)
	}
}

func TestGolden(t *testing.T) {
	for _, term := range goldenTerminals {
		for _, set := range goldenSettings {
			name := term.name + "-" + set.name
			t.Run(name, func(t *testing.T) {
				got := fmt.Sprintf("# %s, settings %s\n", term.env, forceOn(set.section)) + transcript(t, term.env, set.section)
				path := filepath.Join("testdata", name+".golden")
				if *update {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if diff := cmp.Diff(got, string(want)); diff != "" {
					t.Errorf("bytes written differ from %s (-got +want):\n%s", path, diff)
				}
			})
		}
	}
}

// TestGoldenSequences pins the sequences the docs promise, independently of
// the golden files, so that regenerating them cannot silently change the
// mapping.
func TestGoldenSequences(t *testing.T) {
	ghostty := adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0"}
	iterm := adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.6"}
	kitty := adapter.Env{"KITTY_WINDOW_ID=1"}
	tests := []struct {
		name    string
		env     adapter.Env
		section string
		reports []adapter.Report
		want    []string
	}{
		{"working is indeterminate progress", ghostty, ``, []adapter.Report{working}, []string{"\x1b]9;4;3\x1b\\"}},
		{"blocked is the paused state at 100", ghostty, ``, []adapter.Report{approval}, []string{"\x1b]9;4;4;100\x1b\\"}},
		{"idle clears", ghostty, ``, []adapter.Report{idle}, []string{"\x1b]9;4;0\x1b\\"}},
		{"ghostty notifies with OSC 777", ghostty, `{"notify": true}`, []adapter.Report{approval},
			[]string{"\x1b]9;4;4;100\x1b\\", "\x1b]777;notify;mychat;Waiting for approval\x1b\\"}},
		{"iterm2 notifies with OSC 9", iterm, `{"notify": true}`, []adapter.Report{approval},
			[]string{"\x1b]9;4;4;100\x1b\\", "\x1b]9;mychat: Waiting for approval\x1b\\"}},
		{"kitty notifies with OSC 99", kitty, `{"enabled": true, "notify": true}`, []adapter.Report{input},
			[]string{"\x1b]9;4;4;100\x1b\\", "\x1b]99;;mychat: Waiting for input\x1b\\"}},
		{"an out-of-range message notifies with the generic text", iterm, `{"notify": true}`,
			[]adapter.Report{{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.Message(200)}},
			[]string{"\x1b]9;4;4;100\x1b\\", "\x1b]9;mychat: Needs attention\x1b\\"}},
		{"notify off sends no notification", iterm, `{"notify": false}`, []adapter.Report{approval},
			[]string{"\x1b]9;4;4;100\x1b\\"}},
		{"notify once per entry into blocked", iterm, `{"notify": true}`, []adapter.Report{approval, approval, input},
			[]string{"\x1b]9;4;4;100\x1b\\", "\x1b]9;mychat: Waiting for approval\x1b\\", "\x1b]9;4;4;100\x1b\\", "\x1b]9;4;4;100\x1b\\"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := new(tape)
			a, err := terminal.Driver{}.Open(t.Context(), params(out, tt.env, tt.section))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tt.reports {
				if err := a.Report(t.Context(), r); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, w := range out.take() {
				got = append(got, string(w))
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("writes (-got +want):\n%s", diff)
			}
		})
	}
}

func TestNotificationLabelIsSanitised(t *testing.T) {
	tests := []struct {
		name, app, want string
	}{
		{"plain", "mychat", "\x1b]9;mychat: Waiting for approval\x1b\\"},
		{"escape and bell dropped", "my\x1b]2;pwned\achat", "\x1b]9;my]2pwnedchat: Waiting for approval\x1b\\"},
		{"C1 and DEL dropped", "a\u009b\u009cb\x7fc", "\x1b]9;abc: Waiting for approval\x1b\\"},
		{"semicolons dropped", "1;4;3", "\x1b]9;143: Waiting for approval\x1b\\"},
		{"invalid UTF-8 dropped", "caf\xc3", "\x1b]9;caf: Waiting for approval\x1b\\"},
		{"non-ASCII kept", "café", "\x1b]9;café: Waiting for approval\x1b\\"},
		{"empty becomes agent", "\x1b\x07", "\x1b]9;agent: Waiting for approval\x1b\\"},
		{"cut to 64 bytes", strings.Repeat("x", 100), "\x1b]9;" + strings.Repeat("x", 64) + ": Waiting for approval\x1b\\"},
	}
	env := adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.7"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := new(tape)
			p := params(out, env, `{"notify": true}`)
			p.App = tt.app
			a, err := terminal.Driver{}.Open(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Report(t.Context(), approval); err != nil {
				t.Fatal(err)
			}
			w := out.take()
			if len(w) != 2 {
				t.Fatalf("got %d writes %q; want the progress sequence and one notification", len(w), w)
			}
			checkOneSequence(t, w[1])
			if diff := cmp.Diff(string(w[1]), tt.want); diff != "" {
				t.Errorf("notification (-got +want):\n%s", diff)
			}
		})
	}
}

func TestRefreshInterval(t *testing.T) {
	env := adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.3.1"}
	tests := []struct {
		name    string
		section string
		want    time.Duration // while working or blocked
		diag    string        // an invalid_value diagnostic's detail, if any
	}{
		{"default", ``, 10 * time.Second, ""},
		{"duration string", `{"refresh": "5s"}`, 5 * time.Second, ""},
		{"milliseconds", `{"refresh": 2500}`, 2500 * time.Millisecond, ""},
		{"null is the default", `{"refresh": null}`, 10 * time.Second, ""},
		{"clamped up", `{"refresh": "10ms"}`, time.Second, "refresh 10ms is below 1s; using 1s"},
		{"negative clamped up", `{"refresh": -5}`, time.Second, "refresh -5ms is below 1s; using 1s"},
		{"clamped down", `{"refresh": "1m"}`, 14 * time.Second, "refresh 1m0s is above 14s (Ghostty drops a progress state after 15s); using 14s"},
		{"hugely negative clamped up", `{"refresh": -1e300}`, time.Second, "refresh -2562047h47m16.854775808s is below 1s; using 1s"},
		{"huge clamped down", `{"refresh": 1e300}`, 14 * time.Second, "refresh 2562047h47m16.854775807s is above 14s (Ghostty drops a progress state after 15s); using 14s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var diags diagnostics
			p := params(new(tape), env, tt.section)
			p.Diagnose = diags.add
			a, err := terminal.Driver{}.Open(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]time.Duration{}
			for _, r := range []adapter.Report{working, retrying, approval, attention, idle, completed} {
				got[r.String()] = optional.RefreshInterval(a, r)
			}
			want := map[string]time.Duration{
				working.String(): tt.want, retrying.String(): tt.want,
				approval.String(): tt.want, attention.String(): tt.want,
				idle.String(): 0, completed.String(): 0,
			}
			if diff := cmp.Diff(got, want); diff != "" {
				t.Errorf("RefreshInterval (-got +want):\n%s", diff)
			}
			var wantDiags []adapter.Diagnostic
			if tt.diag != "" {
				wantDiags = []adapter.Diagnostic{{Adapter: "terminal", Kind: adapter.KindInvalidValue, Detail: tt.diag}}
			}
			if diff := cmp.Diff(diags.all(), wantDiags); diff != "" {
				t.Errorf("diagnostics (-got +want):\n%s", diff)
			}
		})
	}
}

func TestBadSettings(t *testing.T) {
	env := adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0"}
	tests := []struct{ name, section, want string }{
		{"refresh not a duration", `{"refresh": "soon"}`, `terminal: settings: refresh "soon" is not a duration (want e.g. "10s" or a number of milliseconds)`},
		{"refresh a boolean", `{"refresh": true}`, "terminal: settings: refresh must be a duration string or a number of milliseconds: json: cannot unmarshal bool into Go value of type float64"},
		{"notify a string", `{"notify": "yes"}`, "terminal: settings: json: cannot unmarshal string into Go struct field settings.notify of type bool"},
		{"section not an object", `[1]`, "terminal: settings: json: cannot unmarshal array into Go value of type terminal.settings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := terminal.Driver{}.Open(t.Context(), params(new(tape), env, tt.section))
			if err == nil {
				t.Fatalf("Open = %v, nil; want an error", a)
			}
			if errors.Is(err, adapter.ErrInactive) {
				t.Errorf("Open = %v; a bad setting must not read as inactive", err)
			}
			if diff := cmp.Diff(err.Error(), tt.want); diff != "" {
				t.Errorf("error (-got +want):\n%s", diff)
			}
		})
	}
}

func TestBadSettingsWhereInactiveStayInactive(t *testing.T) {
	err := openErr(t, params(new(tape), adapter.Env{"TERM_PROGRAM=Apple_Terminal"}, `{"notify": "yes"}`))
	if !errors.Is(err, adapter.ErrInactive) {
		t.Errorf("Open = %v; want an error wrapping ErrInactive, since the terminal shows nothing anyway", err)
	}
}

func TestNotifyWithoutMechanismIsDiagnosed(t *testing.T) {
	var diags diagnostics
	out := new(tape)
	p := params(out, adapter.Env{"ConEmuPID=1"}, `{"notify": true}`)
	p.Diagnose = diags.add
	a, err := terminal.Driver{}.Open(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Report(t.Context(), approval); err != nil {
		t.Fatal(err)
	}
	if got := len(out.take()); got != 1 {
		t.Errorf("got %d writes; want only the progress sequence", got)
	}
	want := []adapter.Diagnostic{{Adapter: "terminal", Kind: adapter.KindUnsupported,
		Detail: "notify is on, but ConEmu has no desktop notification sequence; no notification is sent"}}
	if diff := cmp.Diff(diags.all(), want); diff != "" {
		t.Errorf("diagnostics (-got +want):\n%s", diff)
	}
}

func TestFailedWriteIsNotDelivered(t *testing.T) {
	const (
		progress     = "\x1b]9;4;4;100\x1b\\"
		notification = "\x1b]9;mychat: Waiting for approval\x1b\\"
	)
	tests := []struct {
		name   string
		failIf func([]byte) bool
	}{
		{"the progress sequence fails", func(p []byte) bool { return string(p) == progress }},
		{"the notification fails after the progress sequence", func(p []byte) bool { return string(p) == notification }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			out := new(tape)
			a, err := terminal.Driver{}.Open(ctx, params(out, adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.6"}, `{"notify": true}`))
			if err != nil {
				t.Fatal(err)
			}
			broken := errors.New("input/output error")
			out.mu.Lock()
			out.err, out.failIf = broken, tt.failIf
			out.mu.Unlock()
			if err := a.Report(ctx, approval); !errors.Is(err, broken) {
				t.Fatalf("Report with a failing terminal = %v; want an error wrapping %v", err, broken)
			}
			out.setErr(nil)
			out.take()
			// The registry offers the same report again: it is still an
			// entry into blocked, so the notification goes out now, once.
			if err := a.Report(ctx, approval); err != nil {
				t.Fatal(err)
			}
			if err := a.Report(ctx, approval); err != nil { // a refresh
				t.Fatal(err)
			}
			var got []string
			for _, w := range out.take() {
				got = append(got, string(w))
			}
			if diff := cmp.Diff(got, []string{progress, notification, progress}); diff != "" {
				t.Errorf("writes after the retry and a refresh (-got +want):\n%s", diff)
			}
			if got, want := optional.Details(a)["notify"], "OSC 9, 1 sent"; got != want {
				t.Errorf("Details notify = %q; want %q", got, want)
			}
		})
	}
}

func TestReportWithDoneContextWritesNothing(t *testing.T) {
	out := new(tape)
	a, err := terminal.Driver{}.Open(t.Context(), params(out, adapter.Env{"WT_SESSION=x"}, ``))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := a.Report(ctx, working); !errors.Is(err, context.Canceled) {
		t.Errorf("Report = %v; want an error wrapping context.Canceled", err)
	}
	if w := out.take(); len(w) != 0 {
		t.Errorf("Report with a done context wrote %q", w)
	}
	// Release still clears: a spinner left behind is worse than a write.
	if err := optional.Release(ctx, a); err != nil {
		t.Errorf("Release = %v", err)
	}
	if diff := cmp.Diff(out.take(), [][]byte{[]byte("\x1b]9;4;0\x1b\\")}); diff != "" {
		t.Errorf("Release writes (-got +want):\n%s", diff)
	}
}

func TestDetails(t *testing.T) {
	ctx := t.Context()
	a, err := terminal.Driver{}.Open(ctx, params(new(tape), adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.3"}, `{"notify": true}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []adapter.Report{working, approval} {
		if err := a.Report(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{
		"terminal": "Ghostty 1.2.3",
		"shows":    "paused progress (blocked)",
		"refresh":  "10s",
		"notify":   "OSC 777, 1 sent",
		"writes":   "3",
	}
	if diff := cmp.Diff(optional.Details(a), want); diff != "" {
		t.Errorf("Details (-got +want):\n%s", diff)
	}
}

func TestConformance(t *testing.T) {
	for _, term := range goldenTerminals {
		t.Run(term.name, func(t *testing.T) {
			adaptertest.Run(t, func(t *testing.T) adapter.Adapter {
				a, err := terminal.Driver{}.Open(t.Context(), params(new(tape), term.env, `{"enabled": true, "notify": true}`))
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				return a
			})
		})
	}
}

func TestReportAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	a, err := terminal.Driver{}.Open(ctx, adapter.Params{Name: "terminal", App: "mychat", Host: tui,
		Env: adapter.Env{"WT_SESSION=x"}, Terminal: io.Discard, Settings: json.RawMessage(`{"notify": true}`)})
	if err != nil {
		t.Fatal(err)
	}
	reports := []adapter.Report{working, approval, idle}
	i := 0
	if n := testing.AllocsPerRun(100, func() {
		_ = a.Report(ctx, reports[i%len(reports)])
		i++
	}); n != 0 {
		t.Errorf("Report allocates %v times per call; want 0", n)
	}
}

func BenchmarkReport(b *testing.B) {
	ctx := context.Background()
	a, err := terminal.Driver{}.Open(ctx, adapter.Params{Name: "terminal", App: "mychat", Host: tui,
		Env: adapter.Env{"WT_SESSION=x"}, Terminal: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	reports := []adapter.Report{working, approval, idle}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = a.Report(ctx, reports[i%len(reports)])
		i++
	}
}

// stuckTape is a terminal whose writes block until unblocked, like a tty
// stopped with Ctrl-S.
type stuckTape struct {
	entered chan struct{} // size 1: says that a Write has started
	release chan struct{} // closed to let every Write finish
}

func (s *stuckTape) Write(p []byte) (int, error) {
	select {
	case s.entered <- struct{}{}:
	default:
	}
	<-s.release
	return len(p), nil
}

// TestCloseDoesNotWaitForAStuckWrite: Close must be bounded, so it cannot
// queue behind a Report whose Write the terminal never accepts; the
// Report it interrupts still returns once the write goes through, and
// nothing is written after.
func TestCloseDoesNotWaitForAStuckWrite(t *testing.T) {
	out := &stuckTape{entered: make(chan struct{}, 1), release: make(chan struct{})}
	p := params(nil, adapter.Env{"WT_SESSION=x"}, ``)
	p.Terminal = out
	a, err := terminal.Driver{}.Open(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	reported := make(chan error, 1)
	go func() { reported <- a.Report(t.Context(), working) }()
	<-out.entered // Report is inside Write

	closed := make(chan error, 1)
	go func() { closed <- optional.Close(t.Context(), a) }()
	returned := false
	select {
	case err := <-closed:
		returned = true
		if err != nil {
			t.Errorf("Close = %v", err)
		}
	case <-time.After(e2eWait): // only a hang reaches this
		t.Error("Close waited for a Write the terminal does not accept")
	}
	close(out.release)
	if !returned {
		<-closed // it returns once the write is through
	}
	if err := <-reported; err != nil {
		t.Errorf("the interrupted Report = %v; want nil, its write went through", err)
	}
	if err := a.Report(t.Context(), idle); !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Report after Close = %v; want ErrClosed", err)
	}
	if err := optional.Release(t.Context(), a); !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Release after Close = %v; want ErrClosed", err)
	}
}

// TestConcurrentUse calls every method from several goroutines at once, as
// a host outside the registry may (run it with -race): each write stays one
// whole sequence, and once Close has returned nothing more is written.
func TestConcurrentUse(t *testing.T) {
	ctx := t.Context()
	out := new(tape)
	a, err := terminal.Driver{}.Open(ctx, params(out, adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0"}, `{"notify": true}`))
	if err != nil {
		t.Fatal(err)
	}
	reports := []adapter.Report{working, approval, input, idle, attention, completed}
	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	for g := range 3 {
		writers.Go(func() {
			for i := range 50 {
				r := reports[(g+i)%len(reports)]
				if err := a.Report(ctx, r); err != nil {
					t.Errorf("Report(%v) = %v", r, err)
				}
				if i%10 == 9 {
					if err := optional.Release(ctx, a); err != nil {
						t.Errorf("Release = %v", err)
					}
				}
			}
		})
	}
	for range 2 {
		readers.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				_ = optional.Details(a)
				_ = optional.RefreshInterval(a, reports[i%len(reports)])
			}
		})
	}
	writers.Wait()
	close(stop)
	readers.Wait()
	for _, w := range out.take() {
		checkOneSequence(t, w)
	}

	var closers sync.WaitGroup
	for range 2 {
		closers.Go(func() {
			if err := optional.Close(ctx, a); err != nil {
				t.Errorf("Close = %v", err)
			}
		})
		closers.Go(func() {
			// Before or after Close: either a whole write or ErrClosed.
			if err := a.Report(ctx, working); err != nil && !errors.Is(err, adapter.ErrClosed) {
				t.Errorf("Report racing Close = %v", err)
			}
		})
	}
	closers.Wait()
	for _, w := range out.take() {
		checkOneSequence(t, w)
	}
	if err := a.Report(ctx, approval); !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Report after Close = %v; want ErrClosed", err)
	}
	if err := optional.Release(ctx, a); !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Release after Close = %v; want ErrClosed", err)
	}
	if w := out.take(); len(w) != 0 {
		t.Errorf("wrote %q after Close", w)
	}
}

// TestCheckSettings proves Check finds, in a terminal it knows, the
// settings errors Open returns, naming the key, and accepts good sections.
func TestCheckSettings(t *testing.T) {
	tests := []struct {
		name    string
		section string
		key     string // named by the error; "" = valid
	}{
		{name: "none", section: ``},
		{name: "good", section: `{"refresh":"5s","notify":true}`},
		{name: "clamped refresh is valid", section: `{"refresh":"1h"}`},
		{name: "refresh not a duration", section: `{"refresh":"nope"}`, key: "refresh"},
		{name: "notify not a boolean", section: `{"notify":"yes"}`, key: "notify"},
		{name: "not an object", section: `"x"`, key: "settings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := terminal.Driver{}.Check(params(new(tape), adapter.Env{"WT_SESSION=x"}, tt.section))
			if tt.key == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.key) || errors.Is(err, adapter.ErrInactive) {
				t.Fatalf("Check = %v, want a plain error naming %q", err, tt.key)
			}
		})
	}
}

// TestDriverAgreesWithOpen checks, with adaptertest.RunDriver, that Check
// says what Open does, in terminals it knows and does not, with good and bad
// settings, and that an inactive Open starts nothing.
func TestDriverAgreesWithOpen(t *testing.T) {
	adaptertest.RunDriver(t, terminal.Driver{}, map[string]adapter.Params{
		"known terminal":                 params(new(tape), adapter.Env{"WT_SESSION=x"}, ``),
		"known terminal, good settings":  params(new(tape), adapter.Env{"WT_SESSION=x"}, `{"refresh":"5s","notify":true}`),
		"known terminal, bad refresh":    params(new(tape), adapter.Env{"WT_SESSION=x"}, `{"refresh":"nope"}`),
		"unknown terminal":               params(new(tape), adapter.Env{"TERM=xterm"}, ``),
		"unknown terminal, bad settings": params(new(tape), adapter.Env{"TERM=xterm"}, `"x"`),
		"unknown terminal, forced on":    params(new(tape), adapter.Env{"TERM=xterm"}, `{"enabled":true}`),
		"no terminal handed over":        params(nil, adapter.Env{"WT_SESSION=x"}, ``),
	})
}
