package progstatus_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/adapters/progstatus"
	"github.com/panestate/panestate/session"
)

var tuiRoot = session.Host{Interactive: true, Root: true}

// tty is a terminal that records every Write, one entry per call.
type tty struct {
	mu     sync.Mutex
	writes [][]byte
	err    error
}

func (t *tty) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return 0, t.err
	}
	t.writes = append(t.writes, bytes.Clone(b))
	return len(b), nil
}

func (t *tty) take() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var s []string
	for _, w := range t.writes {
		s = append(s, string(w))
	}
	t.writes = nil
	return s
}

func params(out *tty, env ...string) adapter.Params {
	p := adapter.Params{
		Name:     "progstatus",
		App:      "mychat",
		Env:      adapter.Env(env),
		Host:     tuiRoot,
		Diagnose: func(adapter.Diagnostic) {},
	}
	if out != nil {
		p.Terminal = out
	}
	return p
}

func open(t *testing.T, p adapter.Params) *progstatus.Adapter {
	t.Helper()
	a, err := progstatus.Driver{}.Open(t.Context(), p)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = a.(*progstatus.Adapter).Close(context.Background()) })
	return a.(*progstatus.Adapter)
}

var (
	working    = adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}
	approval   = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval}
	input      = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForInput}
	attention  = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonManualIntervention, Message: adapter.MessageWorkflowNeedsAttention}
	quiescent  = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent}
	completed  = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonCompleted}
	turnFailed = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonError}
	paused     = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonPaused}
)

// The golden sequences, byte for byte, for App "mychat".
const (
	goldenIdle       = "\x1b]7501;state=idle:id=mychat:app=mychat\a"
	goldenWorking    = "\x1b]7501;state=working:id=mychat:app=mychat\a"
	goldenPermission = "\x1b]7501;state=blocked:id=mychat:kind=permission:app=mychat:msg=V2FpdGluZyBmb3IgYXBwcm92YWw=\a"
	goldenQuestion   = "\x1b]7501;state=blocked:id=mychat:kind=question:app=mychat:msg=V2FpdGluZyBmb3IgaW5wdXQ=\a"
	goldenAttention  = "\x1b]7501;state=blocked:id=mychat:app=mychat:msg=V29ya2Zsb3cgbmVlZHMgYXR0ZW50aW9u\a"
	goldenDone       = "\x1b]7501;state=done:id=mychat:app=mychat\a"
	goldenClear      = "\x1b]7501;state=clear:id=mychat\a"
)

// TestGoldenTransitions drives every transition of the mapping and checks
// the exact bytes of each Write, that each is one Write, and that the
// strict parser applies each as the record it stands for.
func TestGoldenTransitions(t *testing.T) {
	tests := []struct {
		name    string
		reports []adapter.Report
		release bool
		want    []string
	}{
		{"idle before any work", []adapter.Report{quiescent}, false, []string{goldenIdle}},
		{"paused before any work is idle", []adapter.Report{paused}, false, []string{goldenIdle}},
		{"a whole turn with an approval", []adapter.Report{quiescent, working, approval, working, quiescent}, true,
			[]string{goldenIdle, goldenWorking, goldenPermission, goldenWorking, goldenDone, goldenClear}},
		{"a question", []adapter.Report{working, input, quiescent}, false, []string{goldenWorking, goldenQuestion, goldenDone}},
		{"a workflow needing attention", []adapter.Report{attention}, false, []string{goldenAttention}},
		{"blocked straight from idle, then idle, is done", []adapter.Report{quiescent, input, quiescent}, false,
			[]string{goldenIdle, goldenQuestion, goldenDone}},
		{"a completed turn is done even unseen", []adapter.Report{completed}, false, []string{goldenDone}},
		{"a failed turn is done", []adapter.Report{turnFailed}, false, []string{goldenDone}},
		{"done stays done through idle reasons", []adapter.Report{working, completed, quiescent, paused}, false,
			[]string{goldenWorking, goldenDone}},
		{"the next turn works again", []adapter.Report{working, quiescent, working, quiescent}, false,
			[]string{goldenWorking, goldenDone, goldenWorking, goldenDone}},
		{"a refresh of working writes nothing", []adapter.Report{working, working}, false, []string{goldenWorking}},
		{"release without a report", nil, true, []string{goldenClear}},
		{"after release, idle is before any work again", []adapter.Report{working, quiescent}, true,
			[]string{goldenWorking, goldenDone, goldenClear}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := new(tty)
			a := open(t, params(out, "PANESTATE_PROGSTATUS=1"))
			for _, r := range tt.reports {
				if err := a.Report(t.Context(), r); err != nil {
					t.Fatalf("Report(%v): %v", r, err)
				}
			}
			if tt.release {
				if err := a.Release(t.Context()); err != nil {
					t.Fatalf("Release: %v", err)
				}
			}
			got := out.take()
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("writes (-got +want):\n%s", diff)
			}
			for _, w := range got {
				recs, err := strictParse([]byte(w))
				if err != nil || len(recs) != 1 {
					t.Errorf("strict parser on %q: %v, %d records", w, err, len(recs))
					continue
				}
				if r := recs[0]; r.ID != "mychat" || (r.App != "mychat" && r.State != "clear") {
					t.Errorf("%q applies as %v; want id and app mychat", w, r)
				}
			}
		})
	}
}

// TestRecordsAsTerminalApplies checks what the strict parser makes of each
// golden sequence: the state, kind and fixed message of the mapping.
func TestRecordsAsTerminalApplies(t *testing.T) {
	got, err := strictParse([]byte(goldenIdle + goldenWorking + goldenPermission + goldenQuestion + goldenAttention + goldenDone + goldenClear))
	if err != nil {
		t.Fatal(err)
	}
	want := []rec{
		{State: "idle", ID: "mychat", App: "mychat"},
		{State: "working", ID: "mychat", App: "mychat"},
		{State: "blocked", ID: "mychat", Kind: "permission", App: "mychat", Msg: "Waiting for approval"},
		{State: "blocked", ID: "mychat", Kind: "question", App: "mychat", Msg: "Waiting for input"},
		{State: "blocked", ID: "mychat", App: "mychat", Msg: "Workflow needs attention"},
		{State: "done", ID: "mychat", App: "mychat"},
		{State: "clear", ID: "mychat"},
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("records (-got +want):\n%s", diff)
	}
}

// TestTmuxWrapsEverySequence checks the DCS passthrough form inside tmux,
// byte for byte, and that unwrapping it gives back the plain sequence.
func TestTmuxWrapsEverySequence(t *testing.T) {
	out := new(tty)
	p := params(out, "TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%0")
	p.Forced = true
	a := open(t, p)
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := out.take()
	want := []string{
		"\x1bPtmux;\x1b\x1b]7501;state=working:id=mychat:app=mychat\a\x1b\\",
		"\x1bPtmux;\x1b\x1b]7501;state=clear:id=mychat\a\x1b\\",
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Fatalf("writes (-got +want):\n%s", diff)
	}
	inner, err := unwrapTmux([]byte(strings.Join(got, "")))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(inner), goldenWorking+goldenClear); diff != "" {
		t.Errorf("unwrapped (-got +want):\n%s", diff)
	}
	if !strings.Contains(a.Details()["tmux"], "allow-passthrough on") {
		t.Errorf("Details do not say what tmux needs: %v", a.Details())
	}
}

// TestAppMadeAName checks the host's App as it goes out: a valid name, in
// id and app alike, whatever the host calls itself.
func TestAppMadeAName(t *testing.T) {
	tests := []struct{ app, want string }{
		{"mychat", "mychat"},
		{"My Chat", "My-Chat"},
		{"claude-code", "claude-code"},
		{"a/b:c=d;e\x1b]f", "a-b-c-d-e-f"},
		{"  spaces  ", "spaces"},
		{"日本語", "agent"},
		{"", "agent"},
		{"v1.2+build_3", "v1.2+build_3"},
		{strings.Repeat("x", 40), strings.Repeat("x", 32)},
		{strings.Repeat("x", 31) + " y", strings.Repeat("x", 31)},
	}
	for _, tt := range tests {
		t.Run(tt.app, func(t *testing.T) {
			if got := progstatus.AppName(tt.app); got != tt.want {
				t.Errorf("AppName(%q) = %q; want %q", tt.app, got, tt.want)
			}
			out := new(tty)
			p := params(out, "PANESTATE_PROGSTATUS=1")
			p.App = tt.app
			a := open(t, p)
			if err := a.Report(t.Context(), approval); err != nil {
				t.Fatal(err)
			}
			recs, err := strictParse([]byte(strings.Join(out.take(), "")))
			if err != nil {
				t.Fatal(err)
			}
			if recs[0].App != tt.want || recs[0].ID != tt.want {
				t.Errorf("record %v; want id and app %q", recs[0], tt.want)
			}
		})
	}
}

// TestEncodeRefusesWhatTerminalsDrop checks the encoder against every limit
// and alphabet: what it accepts, the strict parser applies; what breaks a
// rule, it refuses.
func TestEncodeRefusesWhatTerminalsDrop(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	seg8 := strings.Repeat("a/", 7) + "a"
	tests := []struct {
		name string
		kvs  []string
		ok   bool
	}{
		{"minimal", []string{"state", "idle"}, true},
		{"app at 32 bytes", []string{"state", "idle", "app", long(32)}, true},
		{"app at 33 bytes", []string{"state", "idle", "app", long(33)}, false},
		{"app with a slash", []string{"state", "idle", "app", "a/b"}, false},
		{"key at 16 bytes", []string{"state", "idle", long(16), "1"}, true},
		{"key at 17 bytes", []string{"state", "idle", long(17), "1"}, false},
		{"id of 8 segments", []string{"state", "idle", "id", seg8}, true},
		{"id of 9 segments", []string{"state", "idle", "id", seg8 + "/a"}, false},
		{"id segment at 32", []string{"state", "idle", "id", long(32)}, true},
		{"id segment at 33", []string{"state", "idle", "id", long(33)}, false},
		{"id with an empty segment", []string{"state", "clear", "id", "a//b"}, false},
		{"id over 128 bytes", []string{"state", "idle", "id", strings.Repeat(long(31)+"/", 4) + long(10)}, false},
		{"msg at 2048 bytes", []string{"state", "idle", "msg", long(2048)}, true},
		{"msg at 2049 bytes", []string{"state", "idle", "msg", long(2049)}, false},
		{"msg with a newline", []string{"state", "idle", "msg", "a\nb"}, false},
		{"msg with a C1 control", []string{"state", "idle", "msg", "a\u0085b"}, false},
		{"msg not UTF-8", []string{"state", "idle", "msg", "\xff\xfe"}, false},
		{"msg in another script", []string{"state", "idle", "msg", "安全"}, true},
		{"value with a colon", []string{"state", "idle", "app", "a:b"}, false},
		{"value with ESC", []string{"state", "idle\x1b\\"}, false},
		{"empty value", []string{"state", ""}, false},
		{"whole sequence over 4096", []string{"state", "idle", "pad", long(4096)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq, err := progstatus.Encode(tt.kvs...)
			if (err == nil) != tt.ok {
				t.Fatalf("Encode = %q, %v; want ok %v", seq, err, tt.ok)
			}
			if err != nil {
				return
			}
			recs, perr := strictParse(seq)
			if perr != nil || len(recs) != 1 {
				t.Errorf("strict parser drops what Encode wrote, %q: %v", seq, perr)
			}
		})
	}
}

// TestStrictParserDropsWhatTerminalsDrop checks the test parser itself
// against the cases libghostty's and iTerm2's tests settle: without it, a
// lenient parser would pass a broken encoder.
func TestStrictParserDropsWhatTerminalsDrop(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	st := func(body string) string { return "\x1b]7501;" + body + "\x1b\\" }
	fill := 4096 - len("\x1b]7501;state=idle:") - len("\x1b\\")
	tests := []struct {
		name string
		seq  string
		want *rec // nil: dropped
	}{
		{"minimal", st("state=working"), &rec{State: "working"}},
		{"BEL terminator", "\x1b]7501;state=done\x07", &rec{State: "done"}},
		{"no state", st("app=cargo"), nil},
		{"unknown state", st("state=sleeping"), nil},
		{"upper-case state", st("state=IDLE"), nil},
		{"a query is no report", st("?"), nil},
		{"whitespace trimmed", st(" state = done "), &rec{State: "done"}},
		{"malformed pairs skipped", st("bogus:=x:STATE=idle:app=has space:state=working"), &rec{State: "working"}},
		{"last value wins", st("state=idle:app=a:state=done:app=b"), &rec{State: "done", App: "b"}},
		{"padding optional", st("state=idle:msg=YWI"), &rec{State: "idle", Msg: "ab"}},
		{"bad base64", st("state=idle:msg=Y"), nil},
		{"bad base64 even on clear", st("state=clear:msg=Y"), nil},
		{"control character in msg", st("state=idle:msg=" + b64("a\nb")), nil},
		{"C1 control in msg", st("state=idle:msg=" + b64("a\u0085b")), nil},
		{"ESC in title", st("state=idle:title=" + b64("a\x1bb")), nil},
		{"invalid UTF-8", st("state=idle:msg=/w=="), nil},
		{"id a//b", st("state=idle:id=a//b"), nil},
		{"id /a", st("state=idle:id=/a"), nil},
		{"id a,b", st("state=clear:id=a,b"), nil},
		{"id segment 33", st("state=idle:id=" + strings.Repeat("x", 33)), nil},
		{"id depth 9", st("state=idle:id=" + strings.Repeat("a/", 8) + "a"), nil},
		{"kind only with blocked", st("state=working:kind=permission"), &rec{State: "working"}},
		{"unknown kind", st("state=blocked:kind=telepathy"), &rec{State: "blocked"}},
		{"app outside the name alphabet", st("state=idle:app=a/b"), &rec{State: "idle"}},
		{"app at 33 bytes", st("state=idle:app=" + strings.Repeat("a", 33)), nil},
		{"app over the limit then replaced", st("state=idle:app=" + strings.Repeat("a", 33) + ":app=ok"), nil},
		{"key at 17 bytes", st("state=idle:" + strings.Repeat("k", 17) + "=1"), nil},
		{"key at 16 bytes", st("state=idle:" + strings.Repeat("k", 16) + "=1"), &rec{State: "idle"}},
		{"msg of 2048 bytes", st("state=idle:msg=" + b64(strings.Repeat("a", 2048))), &rec{State: "idle", Msg: strings.Repeat("a", 2048)}},
		{"msg of 2049 bytes", st("state=idle:msg=" + b64(strings.Repeat("a", 2049))), nil},
		{"msg over the limit then replaced", st("state=idle:msg=" + b64(strings.Repeat("a", 2100)) + ":msg=" + b64("ok")), nil},
		{"title of 193 bytes", st("state=idle:title=" + b64(strings.Repeat("a", 193))), nil},
		{"sequence of 4096 bytes", st("state=idle:" + strings.Repeat("x", fill)), &rec{State: "idle"}},
		{"sequence of 4097 bytes", st("state=idle:" + strings.Repeat("x", fill+1)), nil},
		{"unterminated", "\x1b]7501;state=idle", nil},
		{"cut short by another escape", "\x1b]7501;state=idle\x1b[H", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := strictParse([]byte(tt.seq))
			if tt.want == nil {
				if err == nil {
					t.Errorf("applied %v; a spec-following terminal drops it", recs)
				} else if !errors.Is(err, errDropped) {
					t.Errorf("error %v does not wrap errDropped", err)
				}
				return
			}
			if err != nil || len(recs) != 1 {
				t.Fatalf("dropped (%v); want %v", err, *tt.want)
			}
			if diff := cmp.Diff(recs[0], *tt.want); diff != "" {
				t.Errorf("record (-got +want):\n%s", diff)
			}
		})
	}
}

// TestConformance runs the adapter conformance suite.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, func(t *testing.T) adapter.Adapter {
		a, err := progstatus.Driver{}.Open(t.Context(), params(new(tty), "PANESTATE_PROGSTATUS=1"))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return a
	})
}

// TestWithdrawnWritesNothing checks the issue-21 rule: a report withdrawn
// before its Write started is not written, and Report says so with
// ErrWithdrawn; the goodbye that follows is written.
func TestWithdrawnWritesNothing(t *testing.T) {
	out := new(tty)
	a := open(t, params(out, "PANESTATE_PROGSTATUS=1"))
	ctx, withdraw := adapter.WithWithdraw(t.Context())
	withdraw()
	if err := a.Report(ctx, working); !errors.Is(err, adapter.ErrWithdrawn) {
		t.Fatalf("Report after withdrawal: %v; want ErrWithdrawn", err)
	}
	if err := a.Release(ctx); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if diff := cmp.Diff(out.take(), []string{goldenClear}); diff != "" {
		t.Errorf("writes (-got +want):\n%s", diff)
	}
}

// TestFailedWriteIsRetried checks that a Write error is returned and that
// the same report is written again next time, not taken as shown.
func TestFailedWriteIsRetried(t *testing.T) {
	out := &tty{err: errors.New("EIO")}
	a := open(t, params(out, "PANESTATE_PROGSTATUS=1"))
	if err := a.Report(t.Context(), working); err == nil {
		t.Fatal("Report on a failing terminal returned nil")
	}
	out.mu.Lock()
	out.err = nil
	out.mu.Unlock()
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(out.take(), []string{goldenWorking}); diff != "" {
		t.Errorf("writes (-got +want):\n%s", diff)
	}
}

// TestDriverAgreesWithOpen checks, with adaptertest.RunDriver, that Check
// says what Open does, where the protocol was found and where it was not,
// with good and bad sections, and that an inactive Open starts nothing.
func TestDriverAgreesWithOpen(t *testing.T) {
	withSection := func(p adapter.Params, s string) adapter.Params { p.Settings = []byte(s); return p }
	adaptertest.RunDriver(t, progstatus.Driver{}, map[string]adapter.Params{
		"probe found it":                        params(new(tty), "PANESTATE_PROGSTATUS=1"),
		"probe found it, section not an object": withSection(params(new(tty), "PANESTATE_PROGSTATUS=1"), `[]`),
		"nothing found":                         params(new(tty)),
		"nothing found, bad section":            withSection(params(new(tty)), `[]`),
		"no terminal handed over":               params(nil, "PANESTATE_PROGSTATUS=1"),
	})
}
