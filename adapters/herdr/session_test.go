package herdr

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/session"
)

// sessionFlags returns a call's session flags ("" when absent).
func sessionFlags(c herdrtest.Call) [2]string {
	id, _ := c.Flag("agent-session-id")
	path, _ := c.Flag("agent-session-path")
	return [2]string{id, path}
}

func TestSessionIdentityUntilDelivered(t *testing.T) {
	forTransports(t, testSessionIdentityUntilDelivered)
}

func testSessionIdentityUntilDelivered(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	f.host.Identity = session.Identity{ID: "s-1", Path: "/home/u/.app/sessions/s-1.jsonl"}
	a := f.open(t)
	ctx := t.Context()
	f.setFault(t, herdrtest.Fault{FailFirst: 1})
	if err := a.Report(ctx, working); err == nil {
		t.Fatal("first report should fail")
	}
	for _, r := range []adapter.Report{working, blocked} {
		if err := a.Report(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	a.SetSession(session.Identity{ID: "s-1", Path: "/home/u/.app/sessions/s-1.jsonl"}) // unchanged
	if err := a.Report(ctx, idle); err != nil {
		t.Fatal(err)
	}
	a.SetSession(session.Identity{ID: "s-2", Path: "relative/s-2.jsonl"}) // changed; path not absolute
	for _, r := range []adapter.Report{working, idle} {
		if err := a.Report(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	a.SetSession(session.Identity{ID: "s-3", Path: `C:\Users\u\s-3.jsonl`})
	if err := a.Report(ctx, working); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	// A new claim sends the identity again.
	if err := a.Report(ctx, idle); err != nil {
		t.Fatal(err)
	}
	var got [][2]string
	for _, c := range f.calls(t) {
		got = append(got, sessionFlags(c))
	}
	full := [2]string{"s-1", "/home/u/.app/sessions/s-1.jsonl"}
	s3 := [2]string{"s-3", `C:\Users\u\s-3.jsonl`}
	want := [][2]string{
		full,        // failed
		full,        // retried, delivered
		{},          // omitted
		{},          // unchanged identity: still omitted
		{"s-2", ""}, // changed: re-armed, relative path not sent
		{},          //
		s3,          // Windows absolute path
		{},          // release carries none
		s3,          // new claim
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("session flags per call (-got +want):\n%s", diff)
	}
	if d := f.diags.kinds(); d[adapter.KindInvalidValue] != 0 {
		t.Errorf("unexpected invalid_value: %v", f.diags.all())
	}
}

func TestArgvInjection(t *testing.T) {
	tests := []struct {
		name     string
		pane     string
		identity session.Identity
		wantID   string // expected --agent-session-id ("" = absent)
		wantPath string
		invalid  bool // one invalid_value diagnostic
	}{
		{name: "pane with shell metacharacters", pane: "w1:p1; rm -rf /"},
		{name: "pane with command substitution", pane: "$(touch pwned)"},
		{name: "pane with quotes and globs", pane: `w1:'p1" * ?`},
		{name: "pane starting with a dash", pane: "-p1"},
		{name: "session id --session", identity: session.Identity{ID: "--session"}, invalid: true},
		{name: "session id --session=x", identity: session.Identity{ID: "--session=x", Path: "/s/x"}, wantPath: "/s/x", invalid: true},
		{name: "session id --remote=x", identity: session.Identity{ID: "--remote=x"}, invalid: true},
		{name: "session id --remote", identity: session.Identity{ID: "--remote"}, invalid: true},
		{name: "session id --remote-keybindings", identity: session.Identity{ID: "--remote-keybindings=a"}, invalid: true},
		{name: "session id --handoff", identity: session.Identity{ID: "--handoff"}, invalid: true},
		{name: "session id with newline", identity: session.Identity{ID: "a\nb"}, invalid: true},
		{name: "session id with escape", identity: session.Identity{ID: "a\x1b[31m"}, invalid: true},
		{name: "session id with C1 control", identity: session.Identity{ID: "a\u0085"}, invalid: true},
		{name: "session id not UTF-8", identity: session.Identity{ID: "s\xff"}, invalid: true},
		{name: "session path not UTF-8", identity: session.Identity{ID: "ok", Path: "/s/\xfe"}, wantID: "ok", invalid: true},
		{name: "session path --session", identity: session.Identity{ID: "ok", Path: "--session"}, wantID: "ok", invalid: true},
		{name: "session id with spaces and dollar", identity: session.Identity{ID: "$(x) `y` ; z"}, wantID: "$(x) `y` ; z"},
		{name: "session id starting with a dash", identity: session.Identity{ID: "-x", Path: "/p"}, wantID: "-x", wantPath: "/p"},
	}
	for _, tt := range tests {
		forTransports(t, func(t *testing.T, tr string) {
			t.Run(tt.name, func(t *testing.T) {
				pane := tt.pane
				if pane == "" {
					pane = "w1:p1"
				}
				f := newFixtureOn(t, tr, herdrtest.Options{Panes: []string{pane}})
				a := f.open(t)
				a.SetSession(tt.identity)
				if err := a.Report(t.Context(), blocked); err != nil {
					t.Fatalf("Report: %v", err)
				}
				calls := f.calls(t)
				if len(calls) != 1 {
					t.Fatalf("%d calls", len(calls))
				}
				c := calls[0]
				if c.Pane != pane || c.Transport == herdrtest.TransportCLI && c.Args[2] != pane {
					t.Errorf("pane %q (argv %q), want %q verbatim", c.Pane, c.Args, pane)
				}
				if diff := cmp.Diff(sessionFlags(c), [2]string{tt.wantID, tt.wantPath}); diff != "" {
					t.Errorf("session flags (-got +want):\n%s", diff)
				}
				if info, _ := f.h.Agent(pane); info.AgentStatus != "blocked" {
					t.Errorf("status %q: the report did not go through", info.AgentStatus)
				}
				want := map[adapter.Kind]int{}
				if tt.invalid {
					want[adapter.KindInvalidValue] = 1
				}
				if diff := cmp.Diff(f.diags.kinds(), want); diff != "" {
					t.Errorf("diagnostics (-got +want):\n%s", diff)
				}
				for _, d := range f.diags.all() {
					if strings.ContainsAny(d.Detail, "\n\x1b") || strings.Contains(d.Detail, "--") {
						t.Errorf("diagnostic repeats the value: %q", d.Detail)
					}
				}
			})
		})
	}
}

func TestMessagesAreFixedTexts(t *testing.T) {
	forTransports(t, testMessagesAreFixedTexts)
}

func testMessagesAreFixedTexts(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	a := f.open(t)
	for _, s := range []adapter.State{adapter.StateIdle, adapter.StateWorking, adapter.StateBlocked} {
		for m := adapter.MessageNone; m <= adapter.MessageWorkflowNeedsAttention; m++ {
			if err := a.Report(t.Context(), adapter.Report{State: s, Message: m}); err != nil {
				t.Fatal(err)
			}
		}
	}
	calls := f.calls(t)
	seen := map[string]int{}
	for _, c := range calls {
		if m, ok := c.Flag("message"); ok {
			seen[m]++
		}
	}
	want := map[string]int{"Waiting for approval": 3, "Waiting for input": 3, "Workflow needs attention": 3}
	if diff := cmp.Diff(seen, want); diff != "" {
		t.Errorf("messages (-got +want):\n%s", diff)
	}
	// Every argv of this test, and of every other test using startHerdr,
	// is also checked by checkRecordedArgv when the test ends.
}
