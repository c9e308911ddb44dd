package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/session"
)

func TestReportStrings(t *testing.T) {
	tests := []struct {
		r     Report
		want  string
		valid bool
	}{
		{Report{StateIdle, ReasonQuiescent, MessageNone}, "idle (quiescent)", true},
		{Report{StateBlocked, ReasonAwaitingInput, MessageWaitingForApproval}, `blocked (awaiting_input) "Waiting for approval"`, true},
		{Report{StateWorking, ReasonExecuting, MessageWorkflowNeedsAttention}, `working (executing) "Workflow needs attention"`, true},
		{Report{}, "State(0) (none)", false},
		{Report{StateIdle, numReasons, MessageNone}, "idle (Reason(12))", false},
		{Report{StateIdle, ReasonNone, numMessages}, "idle (none)", false}, // an invalid message renders as nothing
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
		if got := tt.r.Valid(); got != tt.valid {
			t.Errorf("%v Valid() = %t, want %t", tt.r, got, tt.valid)
		}
	}
	if MessageWaitingForInput.String() != "Waiting for input" || Message(200).String() != "" {
		t.Error("message texts")
	}
}

func TestCheckHost(t *testing.T) {
	tests := []struct {
		name string
		host session.Host
		want []string // substrings of the error; nil = interactive
	}{
		{"interactive root", session.Host{Interactive: true, Root: true}, nil},
		{"zero", session.Host{}, []string{"not interactive", "not the root session"}},
		{"not interactive", session.Host{Root: true}, []string{"not an interactive root session: the host is not interactive"}},
		{"subagent", session.Host{Interactive: true}, []string{"not an interactive root session: the host is not the root session"}},
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
			if !errors.Is(err, ErrInactive) {
				t.Fatalf("CheckHost = %v, want ErrInactive", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}

func TestEnv(t *testing.T) {
	e := Env{"A=1", "B=x=y", "A=2", "EMPTY=", "NOEQ"}
	if v, ok := e.Lookup("A"); !ok || v != "2" {
		t.Errorf("Lookup(A) = %q, %t; the last setting wins", v, ok)
	}
	if v := e.Get("B"); v != "x=y" {
		t.Errorf("Get(B) = %q", v)
	}
	if v, ok := e.Lookup("EMPTY"); !ok || v != "" {
		t.Errorf("Lookup(EMPTY) = %q, %t", v, ok)
	}
	if _, ok := e.Lookup("NOEQ"); ok {
		t.Error("a malformed entry was found")
	}
	got := e.With("A", "3")
	if diff := cmp.Diff(got, Env{"B=x=y", "EMPTY=", "NOEQ", "A=3"}); diff != "" {
		t.Errorf("With (-got +want):\n%s", diff)
	}
	if e[0] != "A=1" {
		t.Error("With changed its receiver")
	}
	if len(Environ()) == 0 {
		t.Error("Environ is empty")
	}
}

func TestBound(t *testing.T) {
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{"short", "hello", 10, "hello"},
		{"control characters", "a\nb\tc\x1b[31m", 20, "a b c [31m"},
		{"invalid utf-8", "a\xffb", 10, "a\uFFFDb"},
		{"bell and C1", "a\ab\u009bc", 10, "a b c"},
		{"bidi controls", "a\u202eb\u2066c\u200fd\u061ce", 20, "a b c d e"},
		{"cut", "abcdefghij", 6, "abc…"},
		{"cut inside a rune", "ééééé", 6, "é…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Bound(tt.in, tt.n)
			if got != tt.want {
				t.Errorf("Bound(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
			if len(got) > tt.n || !utf8.ValidString(got) {
				t.Errorf("Bound gave %d bytes (max %d), valid %t", len(got), tt.n, utf8.ValidString(got))
			}
		})
	}
}

func FuzzBound(f *testing.F) {
	f.Add("Waiting for approval", 5)
	f.Add("\xff\xfe\n\x00", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n%300 + 4
		if n < 4 {
			n += 300
		}
		got := Bound(s, n)
		if len(got) > n || !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r\x00") {
			t.Fatalf("Bound(%q, %d) = %q", s, n, got)
		}
	})
}

func TestNewDiagnostic(t *testing.T) {
	d := NewDiagnostic("herdr", KindTimeout, "call took %s\n%s", "5s", strings.Repeat("x", 1000))
	if len(d.Detail) > MaxDetail || strings.Contains(d.Detail, "\n") {
		t.Errorf("detail not bounded: %d bytes", len(d.Detail))
	}
	if !strings.HasPrefix(d.String(), "herdr: timeout: call took 5s") {
		t.Errorf("String() = %q", d.String())
	}
}

type bare struct{}

func (bare) Report(context.Context, Report) error { return nil }

type full struct {
	bare
	released, closed bool
	id               session.Identity
}

func (f *full) Release(context.Context) error  { f.released = true; return nil }
func (f *full) Close(context.Context) error    { f.closed = true; return nil }
func (f *full) SetSession(id session.Identity) { f.id = id }
func (f *full) Explain() map[string]string     { return map[string]string{"k": "v"} }

type fullDriver struct{ DriverFunc }

func (fullDriver) Settings() (bool, []string) { return false, []string{"enabled", "color"} }
func (fullDriver) ScrubEnv(e Env) Env         { return e.Without(func(k string) bool { return k == "X" }) }
func (fullDriver) Check(p Params) error {
	if p.Env.Get("IN") == "" {
		return ErrInactive
	}
	if string(p.Settings) == `{"color":1}` {
		return errors.New("color: not a string")
	}
	return nil
}

func TestOptionalInterfaceHelpers(t *testing.T) {
	ctx := t.Context()
	var b Adapter = bare{}
	if Release(ctx, b) != nil || Close(ctx, b) != nil || Explain(b) != nil {
		t.Error("fallbacks of a bare adapter")
	}
	SetSession(b, session.Identity{ID: "x"}) // no-op, no panic
	f := &full{}
	if Release(ctx, f); !f.released {
		t.Error("Release not called")
	}
	if Close(ctx, f); !f.closed {
		t.Error("Close not called")
	}
	if SetSession(f, session.Identity{ID: "s"}); f.id.ID != "s" {
		t.Error("SetSession not called")
	}
	if Explain(f)["k"] != "v" {
		t.Error("Explain not called")
	}

	plain := DriverFunc(func(context.Context, Params) (Adapter, error) { return bare{}, nil })
	def, keys := Settings(plain)
	if !def || Check(plain, Params{}) != nil || Check(plain, Params{Settings: json.RawMessage(`{"color":1}`)}) != nil {
		t.Error("driver fallbacks")
	}
	if diff := cmp.Diff(keys, []string{"enabled"}); diff != "" {
		t.Error(diff)
	}
	if got := ScrubEnv(plain, Env{"X=1"}); len(got) != 1 {
		t.Error("ScrubEnv fallback changed env")
	}
	d := fullDriver{plain}
	def, keys = Settings(d)
	if def || !errors.Is(Check(d, Params{}), ErrInactive) {
		t.Error("driver capabilities not used")
	}
	in := Env{"IN=1"}
	if err := Check(d, Params{Env: in, Settings: json.RawMessage(`{"color":1}`)}); err == nil || !strings.Contains(err.Error(), "color") {
		t.Errorf("Check of a bad section = %v, want the driver's error", err)
	}
	if err := Check(d, Params{Env: in}); err != nil {
		t.Errorf("Check of no section = %v, want nil", err)
	}
	if diff := cmp.Diff(keys, []string{"enabled", "color"}); diff != "" {
		t.Errorf("settings keys: %s", diff)
	}
	if got := ScrubEnv(d, Env{"X=1", "Y=2"}); len(got) != 1 || got[0] != "Y=2" {
		t.Errorf("ScrubEnv = %v", got)
	}
	if a, err := plain.Open(ctx, Params{}); err != nil || a == nil {
		t.Error("DriverFunc.Open")
	}
}
