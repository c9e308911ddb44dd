package adapter

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestReportStrings(t *testing.T) {
	tests := []struct {
		r     Report
		want  string
		valid bool
	}{
		{Report{State: StateIdle, Reason: ReasonQuiescent}, "idle (quiescent)", true},
		{Report{State: StateBlocked, Reason: ReasonAwaitingInput, Message: MessageWaitingForApproval}, `blocked (awaiting_input) "Waiting for approval"`, true},
		{Report{State: StateWorking, Reason: ReasonExecuting, Message: MessageWorkflowNeedsAttention}, `working (executing) "Workflow needs attention"`, true},
		{Report{}, "State(0) (none)", false},
		{Report{State: StateIdle, Reason: numReasons}, "idle (Reason(13))", false},
		{Report{State: StateIdle, Message: numMessages}, "idle (none)", false}, // an invalid message renders as nothing
		{Report{State: StateWorking, Reason: ReasonSubagents, Children: Children{{ID: "a1", State: StateBlocked, Message: MessageWaitingForApproval}}},
			"working (subagents)", true},
		{Report{State: StateWorking, Children: Children{{ID: "a1"}}}, "working (none)", false}, // a child without a state
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
