package wezterm_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/adapters/wezterm"
	"github.com/panestate/panestate/session"
)

// tty records every Write, one entry per call.
type tty struct {
	mu     sync.Mutex
	writes []string
}

func (t *tty) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.writes = append(t.writes, string(b))
	return len(b), nil
}

func (t *tty) take() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.writes
	t.writes = nil
	return w
}

func params(out *tty, forced bool, env ...string) adapter.Params {
	p := adapter.Params{Name: "wezterm", App: "mychat", Env: adapter.Env(env), Forced: forced,
		Host: session.Host{Interactive: true, Root: true}, Diagnose: func(adapter.Diagnostic) {}}
	if out != nil {
		p.Terminal = out
	}
	return p
}

// userVars reads the user variables WezTerm would set from out, as its
// parser does: OSC 1337 ; SetUserVar=<name>=<base64> ended by BEL or ST,
// the value strictly base64. A malformed one is an error.
func userVars(out string) (map[string]string, error) {
	vars := map[string]string{}
	for {
		i := strings.Index(out, "\x1b]1337;SetUserVar=")
		if i < 0 {
			return vars, nil
		}
		out = out[i+len("\x1b]1337;SetUserVar="):]
		end := strings.IndexAny(out, "\a\x1b")
		if end < 0 || (out[end] == 0x1b && !strings.HasPrefix(out[end:], "\x1b\\")) {
			return nil, fmt.Errorf("unterminated SetUserVar %q", out)
		}
		name, enc, ok := strings.Cut(out[:end], "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("no name=value in %q", out[:end])
		}
		v, err := base64.StdEncoding.Strict().DecodeString(enc)
		if err != nil {
			return nil, fmt.Errorf("%s: bad base64 %q: %v", name, enc, err)
		}
		vars[name] = string(v)
		out = out[end:]
	}
}

var (
	idle     = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent}
	working  = adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}
	approval = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval}
)

// TestUserVarsExactBytes drives a turn and checks every Write byte for
// byte, that each variable is set only when it changes, and what WezTerm
// makes of them.
func TestUserVarsExactBytes(t *testing.T) {
	out := new(tty)
	a, err := wezterm.Driver{}.Open(t.Context(), params(out, false, "TERM_PROGRAM=WezTerm", "TERM_PROGRAM_VERSION=20240203-110809-5046fc22"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.(adapter.Closer).Close(context.Background())
	steps := []struct {
		r    *adapter.Report // nil: Release
		want []string
		vars map[string]string
	}{
		{&idle, []string{
			"\x1b]1337;SetUserVar=panestate_state=aWRsZQ==\a",
			"\x1b]1337;SetUserVar=panestate_message=\a",
			"\x1b]1337;SetUserVar=panestate_agent=bXljaGF0\a",
		}, map[string]string{"panestate_state": "idle", "panestate_message": "", "panestate_agent": "mychat"}},
		{&working, []string{"\x1b]1337;SetUserVar=panestate_state=d29ya2luZw==\a"},
			map[string]string{"panestate_state": "working"}},
		{&working, nil, nil},
		{&approval, []string{
			"\x1b]1337;SetUserVar=panestate_state=YmxvY2tlZA==\a",
			"\x1b]1337;SetUserVar=panestate_message=V2FpdGluZyBmb3IgYXBwcm92YWw=\a",
		}, map[string]string{"panestate_state": "blocked", "panestate_message": "Waiting for approval"}},
		{&idle, []string{
			"\x1b]1337;SetUserVar=panestate_state=aWRsZQ==\a",
			"\x1b]1337;SetUserVar=panestate_message=\a",
		}, map[string]string{"panestate_state": "idle", "panestate_message": ""}},
		{nil, []string{
			"\x1b]1337;SetUserVar=panestate_state=\a",
			"\x1b]1337;SetUserVar=panestate_agent=\a",
		}, map[string]string{"panestate_state": "", "panestate_agent": ""}},
	}
	for i, st := range steps {
		if st.r != nil {
			err = a.Report(t.Context(), *st.r)
		} else {
			err = a.(adapter.Releaser).Release(t.Context())
		}
		if err != nil {
			t.Fatal(err)
		}
		got := out.take()
		if diff := cmp.Diff(got, st.want); diff != "" {
			t.Errorf("step %d: writes (-got +want):\n%s", i, diff)
		}
		vars, err := userVars(strings.Join(got, ""))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if st.vars == nil {
			st.vars = map[string]string{}
		}
		if diff := cmp.Diff(vars, st.vars); diff != "" {
			t.Errorf("step %d: WezTerm sets (-got +want):\n%s", i, diff)
		}
	}
}

// TestTmuxWrapsEveryUserVar checks the passthrough form inside tmux, as
// WezTerm's own shell integration writes it.
func TestTmuxWrapsEveryUserVar(t *testing.T) {
	out := new(tty)
	a, err := wezterm.Driver{}.Open(t.Context(), params(out, true, "TMUX=/tmp/t,1,0", "TERM_PROGRAM=tmux"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.(adapter.Closer).Close(context.Background())
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	wrap := func(seq string) string { return "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\" }
	want := []string{
		"\x1bPtmux;\x1b\x1b]1337;SetUserVar=panestate_state=d29ya2luZw==\a\x1b\\",
		wrap("\x1b]1337;SetUserVar=panestate_message=\a"),
		wrap(string(wezterm.Sequence("panestate_agent", "mychat", false))),
	}
	if diff := cmp.Diff(out.take(), want); diff != "" {
		t.Errorf("writes (-got +want):\n%s", diff)
	}
}

// TestWhenActive checks where the adapter turns on, and why not elsewhere.
func TestWhenActive(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		forced bool
		noTTY  bool
		on     bool
		why    string
	}{
		{"WezTerm", []string{"TERM_PROGRAM=WezTerm"}, false, false, true, "TERM_PROGRAM=WezTerm"},
		{"WezTerm's pane variable", []string{"WEZTERM_PANE=3"}, false, false, true, "WEZTERM_PANE"},
		{"another terminal", []string{"TERM_PROGRAM=ghostty"}, false, false, false, "not detected"},
		{"over ssh, forced", []string{"SSH_TTY=/dev/pts/2"}, true, false, true, "wezterm.enabled"},
		{"no terminal", []string{"TERM_PROGRAM=WezTerm"}, true, true, false, "no terminal"},
		{"Herdr, even forced", []string{"HERDR_ENV=1", "TERM_PROGRAM=WezTerm"}, true, false, false, "Herdr"},
		{"TERM=dumb, even forced", []string{"TERM=dumb", "TERM_PROGRAM=WezTerm"}, true, false, false, "dumb"},
		{"tmux", []string{"TMUX=/tmp/t,1,0", "WEZTERM_PANE=3"}, false, false, false, "allow-passthrough"},
		{"screen", []string{"STY=1.pts-0", "WEZTERM_PANE=3"}, false, false, false, "screen"},
		{"screen, forced", []string{"STY=1.pts-0"}, true, false, true, "wezterm.enabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := new(tty)
			if tt.noTTY {
				out = nil
			}
			p := params(out, tt.forced, tt.env...)
			checkErr := wezterm.Driver{}.Check(p)
			a, err := wezterm.Driver{}.Open(t.Context(), p)
			if (checkErr == nil) != (err == nil) {
				t.Errorf("Check %v, Open %v", checkErr, err)
			}
			if !tt.on {
				if !errors.Is(err, adapter.ErrInactive) || !strings.Contains(err.Error(), tt.why) {
					t.Errorf("Open: %v; want ErrInactive saying %q", err, tt.why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.(adapter.Closer).Close(context.Background())
			if why := a.(adapter.Detailer).Details()["active because"]; !strings.Contains(why, tt.why) {
				t.Errorf("active because %q; want %q", why, tt.why)
			}
			if out != nil && len(out.take()) != 0 {
				t.Error("Open wrote")
			}
		})
	}
}

// TestConformance runs the adapter conformance suite.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, func(t *testing.T) adapter.Adapter {
		a, err := wezterm.Driver{}.Open(t.Context(), params(new(tty), false, "TERM_PROGRAM=WezTerm"))
		if err != nil {
			t.Fatal(err)
		}
		return a
	})
}

// TestDriverAgreesWithOpen checks that Check says what Open does.
func TestDriverAgreesWithOpen(t *testing.T) {
	adaptertest.RunDriver(t, wezterm.Driver{}, map[string]adapter.Params{
		"WezTerm":          params(new(tty), false, "TERM_PROGRAM=WezTerm"),
		"not WezTerm":      params(new(tty), false, "TERM_PROGRAM=ghostty"),
		"no terminal":      params(nil, true),
		"forced over ssh":  params(new(tty), true),
		"tmux, not forced": params(new(tty), false, "TMUX=/tmp/t,1,0"),
	})
}

// TestWithdrawnWritesNothing: a report withdrawn before its Write started
// is not written; the release that follows is.
func TestWithdrawnWritesNothing(t *testing.T) {
	out := new(tty)
	a, err := wezterm.Driver{}.Open(t.Context(), params(out, false, "TERM_PROGRAM=WezTerm"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.(adapter.Closer).Close(context.Background())
	ctx, withdraw := adapter.WithWithdraw(t.Context())
	withdraw()
	if err := a.Report(ctx, working); !errors.Is(err, adapter.ErrWithdrawn) {
		t.Fatalf("Report after withdrawal: %v", err)
	}
	if err := a.(adapter.Releaser).Release(ctx); err != nil {
		t.Fatal(err)
	}
	if got := out.take(); len(got) != 3 {
		t.Errorf("writes %q; want the three variables set to \"\"", got)
	}
}
