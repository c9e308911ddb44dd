package herdrtest

import (
	"testing"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
)

// TestPaneOfAgentIsPaneOf checks that the pane a request is recorded for
// is the same whether it is taken from the decoded agent params
// (paneOfAgent) or decoded again (paneOf), and that the params a client
// sends take the first way.
func TestPaneOfAgentIsPaneOf(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method wire.Method
		params string
		once   bool // the pane is taken from the agent params
	}{
		{"report", wire.MethodReportAgent, `{"pane_id":"w1:p1","source":"s","agent":"a","state":"working","seq":7}`, true},
		{"release", wire.MethodReleaseAgent, `{"pane_id":"w1:p2","source":"s","agent":"a"}`, true},
		{"session", wire.MethodReportAgentSession, `{"pane_id":"w1:p1","source":"s","agent":"a","agent_session_id":"x"}`, true},
		{"spaces", wire.MethodReportAgent, `{ "pane_id" : "w1:p1", "source":"s","agent":"a","state":"idle" }`, true},
		{"upper_case_duplicate_key", wire.MethodReportAgent, `{"pane_id":"w1:p1","source":"s","agent":"a","state":"idle","PANE_ID":"w9:p9"}`, false},
		{"mixed_case_duplicate_key_first", wire.MethodReportAgent, `{"Pane_Id":"w9:p9","pane_id":"w1:p1","source":"s","agent":"a","state":"idle"}`, false},
		{"escaped_key", wire.MethodReportAgent, `{"pane\u005fid":"w1:p1","source":"s","agent":"a","state":"idle"}`, false},
		{"escaped_value", wire.MethodReportAgent, `{"pane_id":"w1:p\u0031","source":"s","agent":"a","state":"idle"}`, false},
		{"target_not_a_string", wire.MethodReportAgent, `{"pane_id":"w1:p1","source":"s","agent":"a","state":"idle","target":5}`, false},
		{"target_string", wire.MethodReleaseAgent, `{"pane_id":"w1:p1","source":"s","agent":"a","TARGET":"w1:p2"}`, false},
		{"pane_id_as_a_value", wire.MethodReportAgent, `{"pane_id":"w1:p1","source":"s","agent":"pane_id","state":"idle"}`, false},
		{"pane_id_in_a_message", wire.MethodReportAgent, `{"pane_id":"w1:p1","source":"s","agent":"a","state":"idle","message":"no pane_id here"}`, true},
		{"no_pane_id", wire.MethodReportAgent, `{"target":"w1:p1","source":"s","agent":"a","state":"idle"}`, false},
		{"null_pane_id", wire.MethodReleaseAgent, `{"pane_id":null,"target":"w1:p2","source":"s","agent":"a"}`, false},
		{"bad_state", wire.MethodReportAgent, `{"pane_id":"w1:p1","source":"s","agent":"a","state":"done"}`, false},
		{"not_an_agent_method", wire.MethodPaneGet, `{"pane_id":"w1:p1"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := wire.Request{ID: "r", Method: tc.method, Params: []byte(tc.params)}
			ap := decodeAgentParams(req)
			if once := ap.ar != nil && onePaneID(req.Params); once != tc.once {
				t.Errorf("pane taken from the agent params: %v, want %v (decode error %v)", once, tc.once, ap.err)
			}
			if got, want := paneOfAgent(req, ap.ar), paneOf(req); got != want {
				t.Errorf("paneOfAgent = %q, paneOf = %q", got, want)
			}
		})
	}
}
