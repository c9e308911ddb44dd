package wire

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFastPathsMatchJSON: the params, request lines and ok answers written
// and read by hand are, byte for byte, what encoding/json writes and reads,
// for plain text and for every kind of text the hand-written path leaves to
// encoding/json (escapes, HTML characters, non-ASCII, invalid UTF-8, line
// separators).
func TestFastPathsMatchJSON(t *testing.T) {
	seq := uint64(1_755_600_000_000_000_001)
	zero := uint64(0)
	str := func(s string) *string { return &s }
	texts := []string{"", "building", `say "hi"`, `back\slash`, "tab\there", "nl\n", "\x01\x7f", "<a&b>", "héllo",
		"bidi \u202e", "ls\u2028ps\u2029", "bad \xff utf8", "emoji 🙂"}
	var params []any
	for _, s := range texts {
		params = append(params,
			ReportAgentParams{PaneID: "w1:p1", Source: "custom:" + s, Agent: s, State: StateWorking, Message: str(s), Seq: &seq},
			&ReportAgentParams{PaneID: s, Source: "custom:x", Agent: "x", State: StateIdle, AgentSessionID: str(s), AgentSessionPath: str("/p/" + s), ResumeArgv: []string{"x", s}},
			ReleaseAgentParams{PaneID: "w1:p1", Source: s, Agent: "x", Seq: &zero},
			&ReleaseAgentParams{PaneID: "w1:p1", Source: "s", Agent: s},
		)
	}
	params = append(params,
		ReportAgentParams{PaneID: "w1:p1", Source: "s", Agent: "a", State: StateBlocked, ResumeArgv: []string{}},
		ReportAgentParams{PaneID: "w1:p1", Source: "s", Agent: "a", State: StateUnknown, Message: str("")},
		ClearAgentAuthorityParams{PaneID: "w1:p1"},
	)
	for i, p := range params {
		want, werr := marshal(p)
		got, gerr := NewRequest("id", MethodReportAgent, p)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("params %d (%+v): error %v, encoding/json's %v", i, p, gerr, werr)
		}
		if diff := cmp.Diff(string(got.Params), string(want)); diff != "" {
			t.Errorf("params %d (%+v) (-got +want):\n%s", i, p, diff)
		}
		for _, id := range []string{"panestate:request", `q"uote`, "é"} {
			r := Request{ID: id, Method: MethodReleaseAgent, Params: got.Params}
			wantLine, err := marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			gotLine, err := r.Line()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(gotLine), string(wantLine)+"\n"); diff != "" {
				t.Errorf("line of params %d, id %q (-got +want):\n%s", i, id, diff)
			}
		}
	}
	// Params given as raw JSON with white space are compacted, as
	// encoding/json does; invalid raw JSON fails on both paths.
	for _, raw := range []string{`{ "pane_id" : "w1:p1" }`, `{"a":[1, 2]}`, `{"a":`} {
		r := Request{ID: "id", Method: MethodPing, Params: json.RawMessage(raw)}
		want, werr := marshal(r)
		got, gerr := r.Line()
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("raw %q: error %v, encoding/json's %v", raw, gerr, werr)
		}
		if werr == nil {
			if diff := cmp.Diff(string(got), string(want)+"\n"); diff != "" {
				t.Errorf("raw %q (-got +want):\n%s", raw, diff)
			}
		}
	}
	for _, line := range []string{
		`{"id":"panestate:request","result":{"type":"ok"}}`,
		`{"id":"","result":{"type":"ok"}}` + " \r",
		`{"id":"a\"b","result":{"type":"ok"}}`,
		`{"id":"x","result":{"type":"ok"}}}`,
		`{"id":"x","result":{"type":"okay"}}`,
		`{"id":"x","result":{"type":"ok"},"error":{"code":"c"}}`,
		`{"id":"x","result":{"type":"ok"}} x`,
		`{"id":"é","result":{"type":"ok"}}`,
	} {
		want, werr := decodeResponseJSON([]byte(line))
		got, gerr := DecodeResponse([]byte(line))
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("%s: error %v, encoding/json's %v", line, gerr, werr)
		}
		if diff := cmp.Diff(got, want); diff != "" {
			t.Errorf("%s (-got +want):\n%s", line, diff)
		}
	}
}
