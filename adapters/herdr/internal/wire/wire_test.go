package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// TestRequestLines pins the literal request lines of CONTRACT §2.4 and
// checklist items 22 and 23: key order, absent optional fields omitted, one
// line ending in a newline.
func TestRequestLines(t *testing.T) {
	for _, tc := range []struct {
		name   string
		id     string
		method Method
		params any
		want   string
	}{
		{"ping", IDStatus, MethodPing, nil, `{"id":"api-client:status","method":"ping","params":{}}`},
		{"report_agent", IDCLIRequest, MethodReportAgent, ReportAgentParams{
			PaneID: "w1:p1", Source: "custom:my-agent", Agent: "my-agent", State: StateWorking,
			Message: new("building"), Seq: new(uint64(1755600000000000001)),
		}, `{"id":"cli:request","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"custom:my-agent","agent":"my-agent","state":"working","message":"building","seq":1755600000000000001}}`},
		{"report_agent_every_field", "x", MethodReportAgent, ReportAgentParams{
			PaneID: "w1:p1", Source: "s", Agent: "a", State: StateIdle, Message: new(""), Seq: new(uint64(0)),
			AgentSessionID: new("sid"), AgentSessionPath: new("/p"), ResumeArgv: []string{"mychat", "--resume", "abc"},
		}, `{"id":"x","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"s","agent":"a","state":"idle","message":"","seq":0,"agent_session_id":"sid","agent_session_path":"/p","resume_argv":["mychat","--resume","abc"]}}`},
		{"release_agent", IDCLIRequest, MethodReleaseAgent, ReleaseAgentParams{
			PaneID: "w1:p1", Source: "custom:my-agent", Agent: "my-agent", Seq: new(uint64(1755600000000000002)),
		}, `{"id":"cli:request","method":"pane.release_agent","params":{"pane_id":"w1:p1","source":"custom:my-agent","agent":"my-agent","seq":1755600000000000002}}`},
		{"release_agent_unsequenced", "", MethodReleaseAgent, ReleaseAgentParams{PaneID: "p", Source: "s", Agent: "a"},
			`{"id":"","method":"pane.release_agent","params":{"pane_id":"p","source":"s","agent":"a"}}`},
		{"report_agent_session", IDCLIRequest, MethodReportAgentSession, ReportAgentSessionParams{
			PaneID: "p", Source: "s", Agent: "a", Seq: new(uint64(3)), SessionStartSource: new("startup"),
		}, `{"id":"cli:request","method":"pane.report_agent_session","params":{"pane_id":"p","source":"s","agent":"a","seq":3,"session_start_source":"startup"}}`},
		{"no_html_escaping", "i", MethodReportAgent, ReportAgentParams{PaneID: "p", Source: "s", Agent: "<a&b>", State: StateBlocked},
			`{"id":"i","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"<a&b>","state":"blocked"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := NewRequest(tc.id, tc.method, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			line, err := req.Line()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(line), tc.want+"\n"); diff != "" {
				t.Errorf("line (-got +want):\n%s", diff)
			}
		})
	}
}

func TestNewRequestRejectsInvalidState(t *testing.T) {
	if _, err := NewRequest("i", MethodReportAgent, ReportAgentParams{PaneID: "p", Source: "s", Agent: "a", State: "done"}); err == nil {
		t.Fatal("NewRequest with state done succeeded")
	}
}

// TestDecodeRequest follows CONTRACT §2.2 and §2.4: serde's failures are the
// server's invalid_request; unknown fields are ignored.
func TestDecodeRequest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		line    string
		want    ReportAgentParams
		wantErr string // substring; "" means success
	}{
		{name: "minimal", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"idle"}}`,
			want: ReportAgentParams{PaneID: "p", Source: "s", Agent: "x", State: StateIdle}},
		{name: "unknown_fields_and_nulls", line: `{"id":"a","extra":1,"method":"pane.report_agent","params":{"pane_id":"p","source":"","agent":"x","state":"unknown","message":null,"seq":null,"more":[1]}}`,
			want: ReportAgentParams{PaneID: "p", Agent: "x", State: StateUnknown}},
		{name: "seq_max", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"idle","seq":18446744073709551615,"resume_argv":["a","b"]}}`,
			want: ReportAgentParams{PaneID: "p", Source: "s", Agent: "x", State: StateIdle, Seq: new(uint64(1<<64 - 1)), ResumeArgv: []string{"a", "b"}}},
		{name: "state_done", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"done"}}`, wantErr: "unknown variant"},
		{name: "state_case", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"Working"}}`, wantErr: "unknown variant"},
		{name: "seq_negative", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"idle","seq":-1}}`, wantErr: "cannot unmarshal"},
		{name: "seq_fraction", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"idle","seq":1.5}}`, wantErr: "cannot unmarshal"},
		{name: "seq_string", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"idle","seq":"5"}}`, wantErr: "cannot unmarshal"},
		{name: "seq_overflow", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"idle","seq":18446744073709551616}}`, wantErr: "cannot unmarshal"},
		{name: "missing_pane", line: `{"id":"a","method":"pane.report_agent","params":{"source":"s","agent":"x","state":"idle"}}`, wantErr: "missing field `pane_id`"},
		{name: "null_agent", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":null,"state":"idle"}}`, wantErr: "missing field `agent`"},
		{name: "missing_state", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x"}}`, wantErr: "missing field `state`"},
		{name: "params_array", line: `{"id":"a","method":"pane.report_agent","params":[]}`, wantErr: "expected an object"},
		{name: "params_missing", line: `{"id":"a","method":"pane.report_agent"}`, wantErr: "missing field `params`"},
		{name: "id_missing", line: `{"method":"ping","params":{}}`, wantErr: "missing field `id`"},
		{name: "id_number", line: `{"id":1,"method":"ping","params":{}}`, wantErr: "cannot unmarshal"},
		{name: "method_missing", line: `{"id":"a","params":{}}`, wantErr: "missing field `method`"},
		{name: "not_json", line: `{"id":`, wantErr: "unexpected end"},
		// serde matches field names exactly: a key in another case is an
		// unknown field, ignored, so the field is missing.
		{name: "key_case", line: `{"id":"a","method":"pane.report_agent","params":{"Pane_ID":"p","source":"s","agent":"x","state":"idle"}}`, wantErr: "missing field `pane_id`"},
		{name: "envelope_key_case", line: `{"ID":"a","method":"ping","params":{}}`, wantErr: "missing field `id`"},
		{name: "key_case_beside_the_field", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"idle","SEQ":5}}`,
			want: ReportAgentParams{PaneID: "p", Source: "s", Agent: "x", State: StateIdle}},
		// A derived struct rejects a field given twice.
		{name: "duplicate_field", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"idle","seq":1,"seq":2}}`, wantErr: "duplicate field `seq`"},
		{name: "duplicate_id", line: `{"id":"a","id":"b","method":"ping","params":{}}`, wantErr: "duplicate field `id`"},
		{name: "duplicate_unknown_field", line: `{"id":"a","method":"pane.report_agent","params":{"pane_id":"p","source":"s","agent":"x","state":"idle","x":1,"x":2}}`,
			want: ReportAgentParams{PaneID: "p", Source: "s", Agent: "x", State: StateIdle}},
		{name: "trailing_characters", line: `{"id":"a","method":"ping","params":{}} {}`, wantErr: "trailing characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := DecodeRequest([]byte(tc.line))
			var got ReportAgentParams
			if err == nil {
				err = req.Decode(&got)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("params (-got +want):\n%s", diff)
			}
		})
	}
}

// TestPlainObjectIsTheRebuiltObject holds strictObject's shortcut to the
// decoder it skips: an object plainObject takes has the fields, byte for
// byte, of the object rebuildObject returns, and an object with anything the
// decoder would change (whitespace, an escaped, unknown or repeated key, a
// character json.Marshal escapes, trailing text) is left to the decoder.
func TestDecodeOtherParams(t *testing.T) {
	decode := func(params string, dst any) error {
		return Request{Method: "m", Params: json.RawMessage(params)}.Decode(dst)
	}
	var rel ReleaseAgentParams
	if err := decode(`{"pane_id":"p","source":"s","agent":"a","seq":4}`, &rel); err != nil || *rel.Seq != 4 {
		t.Errorf("release: %+v %v", rel, err)
	}
	if err := decode(`{"pane_id":"p","agent":"a"}`, &rel); err == nil {
		t.Error("release without source decoded")
	}
	var sess ReportAgentSessionParams
	if err := decode(`{"pane_id":"p","source":"s","agent":"a","session_start_source":"resume"}`, &sess); err != nil || *sess.SessionStartSource != "resume" {
		t.Errorf("session: %+v %v", sess, err)
	}
	var pt PaneTarget
	if err := decode(`{}`, &pt); err == nil {
		t.Error("pane target without pane_id decoded")
	}
	var at AgentTarget
	if err := decode(`{"target":"w1:p1"}`, &at); err != nil || at.Target != "w1:p1" {
		t.Errorf("agent target: %+v %v", at, err)
	}
}

// TestResponseLines pins the response shapes of CONTRACT §2.3-2.4 and
// checklist items 24 and 25.
func TestResponseLines(t *testing.T) {
	pong, err := NewSuccess(IDStatus, Pong{Type: ResultPong, Version: "0.8.2", Protocol: Protocol082, Capabilities: Capabilities{LiveHandoff: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		resp Response
		want string
	}{
		{"ok", OK(IDCLIRequest), `{"id":"cli:request","result":{"type":"ok"}}`},
		{"pong", pong, `{"id":"api-client:status","result":{"type":"pong","version":"0.8.2","protocol":20,"capabilities":{"live_handoff":true,"detached_server_daemon":false}}}`},
		{"invalid_request", NewError("", CodeInvalidRequest, "invalid request: x"), `{"id":"","error":{"code":"invalid_request","message":"invalid request: x"}}`},
		{"pane_not_found", NewError("cli:request", CodePaneNotFound, "pane w9:p9 not found"), `{"id":"cli:request","error":{"code":"pane_not_found","message":"pane w9:p9 not found"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(string(tc.resp.Line()), tc.want+"\n"); diff != "" {
				t.Errorf("line (-got +want):\n%s", diff)
			}
			back, err := DecodeResponse([]byte(tc.want))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(back.Line()), tc.want+"\n"); diff != "" {
				t.Errorf("decoded and encoded again (-got +want):\n%s", diff)
			}
		})
	}
}

func TestDecodeResponseMalformed(t *testing.T) {
	for _, line := range []string{
		`{}`,
		`not json`,
		`{"id":"a"}`,
		`{"id":"a","result":{"type":"ok"},"error":{"code":"x","message":""}}`,
		`{"id":"a","result":{}}`,
		`{"id":"a","result":"ok"}`,
		`{"id":"a","error":{"message":"m"}}`,
		`{"id":5,"result":{"type":"ok"}}`,
		`{}` + "\xff",
	} {
		if _, err := DecodeResponse([]byte(line)); !errors.Is(err, ErrMalformedResponse) {
			t.Errorf("DecodeResponse(%q) = %v, want ErrMalformedResponse", line, err)
		}
	}
	r, err := DecodeResponse([]byte(`{"id":"a","error":{"code":"pane_not_found","message":"pane x not found"},"extra":true}`))
	if err != nil {
		t.Fatal(err)
	}
	var we *Error
	if !errors.As(r.Err(), &we) || we.Code != CodePaneNotFound || strings.Contains(we.Error(), "pane x") {
		t.Errorf("Err() = %v: want the code, and not the server's text", r.Err())
	}
}

// TestReadRequestLine follows CONTRACT §2.1 and checklist item 26: no
// newline, too long or not UTF-8 means no request.
func TestReadRequestLine(t *testing.T) {
	long := strings.Repeat("x", MaxRequestLine)
	for _, tc := range []struct {
		name    string
		in      io.Reader
		want    string
		wantErr error
	}{
		{"line", strings.NewReader("{\"a\":1}\n"), `{"a":1}`, nil},
		{"rest_ignored", strings.NewReader("a\nb\n"), "a", nil},
		{"empty_line", strings.NewReader("\n"), "", nil},
		{"one_byte_reads", iotest.OneByteReader(strings.NewReader("abc\n")), "abc", nil},
		{"exactly_the_limit", strings.NewReader(long + "\n"), long, nil},
		{"one_over_the_limit", strings.NewReader(long + "x\n"), "", ErrLineTooLong},
		{"over_the_limit_no_newline", strings.NewReader(long + "xyz"), "", ErrLineTooLong},
		{"no_newline", strings.NewReader(`{"id":"a"}`), "", ErrNoNewline},
		{"nothing", strings.NewReader(""), "", ErrNoNewline},
		{"invalid_utf8", strings.NewReader("\xff\n"), "", ErrInvalidUTF8},
		{"read_error", iotest.ErrReader(io.ErrClosedPipe), "", io.ErrClosedPipe},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadRequestLine(tc.in)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			if err == nil && string(got) != tc.want {
				t.Errorf("line = %.40q (%d bytes), want %.40q (%d bytes)", got, len(got), tc.want, len(tc.want))
			}
		})
	}
}

func TestReadResponse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      io.Reader
		want    string
		wantErr error
	}{
		{"line", strings.NewReader("{}\n"), "{}", nil},
		{"eof_ends_the_line", strings.NewReader("{}"), "{}", nil},
		{"one_byte_reads", iotest.OneByteReader(strings.NewReader("{\"id\":\"x\"}\nmore")), `{"id":"x"}`, nil},
		{"at_the_bound", strings.NewReader(strings.Repeat("a", MaxResponse) + "\n"), strings.Repeat("a", MaxResponse), nil},
		{"over_the_bound", strings.NewReader(strings.Repeat("a", MaxResponse+1) + "\n"), "", ErrResponseTooLarge},
		{"over_the_bound_eof", strings.NewReader(strings.Repeat("a", MaxResponse+1)), "", ErrResponseTooLarge},
		{"endless", endless{}, "", ErrResponseTooLarge},
		{"empty", strings.NewReader(""), "", ErrEmptyResponse},
		{"blank", strings.NewReader(" \r\n"), "", ErrEmptyResponse},
		{"error", iotest.ErrReader(io.ErrUnexpectedEOF), "", io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readResponse(tc.in, MaxResponse)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			if err == nil && !bytes.Equal(got, []byte(tc.want)) {
				t.Errorf("response = %.40q (%d bytes), want %d bytes", got, len(got), len(tc.want))
			}
		})
	}
}

// endless is a reader that never ends and never sends a newline.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'z'
	}
	return len(p), nil
}

func TestAgentStateText(t *testing.T) {
	for _, s := range []AgentState{StateIdle, StateWorking, StateBlocked, StateUnknown} {
		var back AgentState
		text, err := s.MarshalText()
		if err != nil || back.UnmarshalText(text) != nil || back != s {
			t.Errorf("%q: round trip gave %q, %v", s, back, err)
		}
	}
	for _, s := range []AgentState{"", "done", "Idle"} {
		if s.Valid() {
			t.Errorf("%q is valid", s)
		}
	}
}
