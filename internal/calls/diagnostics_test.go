package calls_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/calls"
)

func TestDiagnostics(t *testing.T) {
	type step struct {
		do   string // "emit", "send", "tally" or "reset"
		kind adapter.Kind
	}
	tests := []struct {
		name    string
		steps   []step
		sent    []string
		explain map[string]string
	}{
		{
			name:    "one per kind in a claim, every one counted",
			steps:   []step{{"emit", adapter.KindTimeout}, {"emit", adapter.KindTimeout}, {"emit", adapter.KindSpawnFailed}, {"emit", adapter.KindTimeout}},
			sent:    []string{"a: timeout: d", "a: spawn_failed: d"},
			explain: map[string]string{"diag.timeout": "3", "diag.spawn_failed": "1"},
		},
		{
			name:    "reset sends each kind again",
			steps:   []step{{"emit", adapter.KindTimeout}, {"reset", ""}, {"emit", adapter.KindTimeout}, {"emit", adapter.KindTimeout}},
			sent:    []string{"a: timeout: d", "a: timeout: d"},
			explain: map[string]string{"diag.timeout": "3"},
		},
		{
			name:    "send ignores the claim and leaves emit alone",
			steps:   []step{{"send", adapter.KindInvalidValue}, {"send", adapter.KindInvalidValue}, {"emit", adapter.KindInvalidValue}, {"emit", adapter.KindInvalidValue}},
			sent:    []string{"a: invalid_value: d", "a: invalid_value: d", "a: invalid_value: d"},
			explain: map[string]string{"diag.invalid_value": "4"},
		},
		{
			name:    "tally counts without sending",
			steps:   []step{{"tally", adapter.KindPersistFailed}, {"emit", adapter.KindPersistFailed}},
			sent:    []string{"a: persist_failed: d"},
			explain: map[string]string{"diag.persist_failed": "2"},
		},
		{
			name:    "nothing counted, nothing explained",
			explain: map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sent []string
			d := calls.NewDiagnostics("a", func(d adapter.Diagnostic) { sent = append(sent, d.String()) })
			for _, s := range tt.steps {
				switch s.do {
				case "emit":
					d.Emit(s.kind, "%s", "d")
				case "send":
					d.Send(s.kind, "%s", "d")
				case "tally":
					d.Tally(s.kind)
				case "reset":
					d.Reset()
				}
			}
			if diff := cmp.Diff(sent, tt.sent); diff != "" {
				t.Errorf("sent (-got +want):\n%s", diff)
			}
			got := map[string]string{}
			d.AddDetails(got)
			if diff := cmp.Diff(got, tt.explain); diff != "" {
				t.Errorf("AddDetails (-got +want):\n%s", diff)
			}
		})
	}
}

func TestDiagnosticsEmitReportsWhetherItSent(t *testing.T) {
	d := calls.NewDiagnostics("a", nil) // a nil sink drops, and counts
	if !d.Emit(adapter.KindTimeout, "x") {
		t.Error("first Emit = false, want true")
	}
	if d.Emit(adapter.KindTimeout, "x") {
		t.Error("second Emit in the claim = true, want false")
	}
	m := map[string]string{}
	d.AddDetails(m)
	if m["diag.timeout"] != "2" {
		t.Errorf("diag.timeout = %q, want 2", m["diag.timeout"])
	}
}

func TestDiagnosticsBoundsTheDetail(t *testing.T) {
	var got adapter.Diagnostic
	d := calls.NewDiagnostics("a", func(x adapter.Diagnostic) { got = x })
	d.Emit(adapter.KindProtocolRejected, "%s", "line\nbreak"+strings.Repeat("x", 2*adapter.MaxDetail))
	if len(got.Detail) > adapter.MaxDetail || strings.ContainsRune(got.Detail, '\n') {
		t.Errorf("detail %q is not bounded to one line of %d bytes", got.Detail, adapter.MaxDetail)
	}
}
