package herdrtest

import (
	"strings"
	"testing"
)

// TestClearAgentAuthority: pane.clear_agent_authority answers {"type":"ok"}
// as Herdr 0.8.2 does (its tests/api_ping.rs) and clears the authority
// when source is omitted or matches, under the source's high-water mark
// (CONTRACT §3.5).
func TestClearAgentAuthority(t *testing.T) {
	tests := []struct {
		name   string
		params string
		want   string // the answer
		agent  string // the pane's agent after it ("" for none)
		status string
		hwm    uint64
	}{
		{name: "source matches", params: `{"pane_id":"w1:p1","source":"custom:t","seq":11}`,
			want: `{"id":"x","result":{"type":"ok"}}`, status: "unknown", hwm: 11},
		{name: "source omitted", params: `{"pane_id":"w1:p1"}`,
			want: `{"id":"x","result":{"type":"ok"}}`, status: "unknown", hwm: 10},
		{name: "another source", params: `{"pane_id":"w1:p1","source":"custom:other","seq":11}`,
			want: `{"id":"x","result":{"type":"ok"}}`, agent: "t", status: "working", hwm: 10},
		{name: "stale seq", params: `{"pane_id":"w1:p1","source":"custom:t","seq":10}`,
			want: `{"id":"x","result":{"type":"ok"}}`, agent: "t", status: "working", hwm: 10},
		{name: "no such pane", params: `{"pane_id":"w9:p9"}`,
			want: `{"id":"x","error":{"code":"pane_not_found"`, agent: "t", status: "working", hwm: 10},
		{name: "pane_id missing", params: `{"source":"custom:t"}`,
			want: `{"id":"","error":{"code":"invalid_request"`, agent: "t", status: "working", hwm: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRunner(t, Options{})
			r.ok(report(r.h.Pane, "custom:t", "t", "working", "--seq", "10")...)
			got := exchange(t, r.h, `{"id":"x","method":"pane.clear_agent_authority","params":`+tt.params+"}\n")
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("answer %q, want %q...", got, tt.want)
			}
			r.agent(r.h.Pane, tt.agent, tt.status)
			r.hwm(r.h.Pane, "custom:t", tt.hwm, true)
		})
	}
}
