package wire

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Limits of the wire.
const (
	// MaxRequestLine is the most bytes a server reads for a request line
	// before it closes the connection without a response: 1 MiB (§2.1,
	// Herdr's MAX_INITIAL_REQUEST_BYTES).
	MaxRequestLine = 1 << 20
	// RequestLineTimeout is how long a server waits for the request line
	// (§2.1, Herdr's INITIAL_REQUEST_TIMEOUT).
	RequestLineTimeout = 5 * time.Second
	// MaxResponse is the most bytes [Do] reads for a response. It is this
	// project's bound, not Herdr's (Herdr's CLI reads without one): the
	// answers a reporter gets are a few hundred bytes.
	MaxResponse = 64 << 10
)

// Protocol numbers a ping can report (§6; HERDR-0.9.md "Versions and
// protocol").
const (
	// Protocol082 is the socket protocol of Herdr 0.8.2.
	Protocol082 = 20
	// Protocol09 is the socket protocol of Herdr 0.9.x (0.9.0 to 0.9.3).
	Protocol09 = 22
)

// Method is a request's method name (§2.2; Herdr's src/api/schema.rs).
type Method string

// The methods a reporter and the emulated Herdr use.
const (
	MethodPing               Method = "ping"
	MethodReportAgent        Method = "pane.report_agent"
	MethodReleaseAgent       Method = "pane.release_agent"
	MethodReportAgentSession Method = "pane.report_agent_session"
	MethodPaneGet            Method = "pane.get"     // params [PaneTarget]
	MethodPaneList           Method = "pane.list"    // params [PaneListParams]
	MethodPaneCurrent        Method = "pane.current" // params [PaneCurrentParams]
	MethodAgentGet           Method = "agent.get"    // params [AgentTarget]
	MethodAgentList          Method = "agent.list"   // params {}
	MethodAgentFocus         Method = "agent.focus"  // params [AgentTarget]
	// MethodClearAgentAuthority has no CLI command (§2.2); params
	// [ClearAgentAuthorityParams].
	MethodClearAgentAuthority Method = "pane.clear_agent_authority"
)

// Request ids Herdr's CLI uses (§1.5): its protocol check pings under
// IDStatus, and report-agent, release-agent and report-agent-session send
// their request under IDCLIRequest.
const (
	IDStatus     = "api-client:status"
	IDCLIRequest = "cli:request"
)

// AgentState is the state a report carries: one of idle, working, blocked
// and unknown, case-sensitive (§2.2; Herdr's PaneAgentState). "done" is a
// status Herdr shows, never a state a reporter sends.
type AgentState string

// The four states of [AgentState].
const (
	StateIdle    AgentState = "idle"
	StateWorking AgentState = "working"
	StateBlocked AgentState = "blocked"
	StateUnknown AgentState = "unknown"
)

// Valid reports whether s is one of the four states.
func (s AgentState) Valid() bool {
	switch s {
	case StateIdle, StateWorking, StateBlocked, StateUnknown:
		return true
	}
	return false
}

// MarshalText fails for an invalid state, so that no request carries one.
func (s AgentState) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("wire: invalid agent state %q", string(s))
	}
	return []byte(s), nil
}

// UnmarshalText accepts exactly the four states, as serde does.
func (s *AgentState) UnmarshalText(text []byte) error {
	v := AgentState(text)
	if !v.Valid() {
		return fmt.Errorf("unknown variant %q, expected one of idle, working, blocked, unknown", text)
	}
	*s = v
	return nil
}

// Request is one request line: {"id":…,"method":…,"params":{…}}.
type Request struct {
	ID     string          `json:"id"`
	Method Method          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// NewRequest builds a request whose params are params marshalled as Herdr
// does (no HTML escaping). A nil params is {}.
func NewRequest(id string, method Method, params any) (Request, error) {
	if params == nil {
		return Request{ID: id, Method: method, Params: json.RawMessage("{}")}, nil
	}
	raw, err := marshal(params)
	if err != nil {
		return Request{}, fmt.Errorf("wire: %s params: %w", method, err)
	}
	return Request{ID: id, Method: method, Params: raw}, nil
}

// Line returns the request as one JSON line ending in a newline.
func (r Request) Line() ([]byte, error) {
	if r.Params == nil {
		r.Params = json.RawMessage("{}")
	}
	b, err := marshal(r)
	if err != nil {
		return nil, fmt.Errorf("wire: encode request: %w", err)
	}
	return append(b, '\n'), nil
}

// DecodeRequest parses a request line (already trimmed) as Herdr's server
// does: the id, the method and the params must be present, with id and
// method strings; unknown fields are ignored (§2.2). Keys match exactly, a
// field given twice is an error and nothing may follow the object, as in
// serde (see [strictObject]). The params are checked by the method's params
// type, see [Request.Decode].
//
// Inferred: serde requires the params of every method, including ping's {};
// a missing params member is therefore an error here too. Also inferred:
// the envelope rejects a second method or params as it does a second id.
func DecodeRequest(line []byte) (Request, error) {
	var raw struct {
		ID     string          `json:"id"`
		Method Method          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := strictDecode(line, &raw, "id", "method", "params"); err != nil {
		return Request{}, err
	}
	return Request{ID: raw.ID, Method: raw.Method, Params: raw.Params}, nil
}

// Decode unmarshals the params into dst (a pointer to one of the params
// types of this package), with that type's checks.
func (r Request) Decode(dst any) error {
	if len(bytes.TrimSpace(r.Params)) == 0 || r.Params[0] != '{' {
		return fmt.Errorf("invalid type for params of %s: expected an object", r.Method)
	}
	return json.Unmarshal(r.Params, dst)
}

// ReportAgentParams are the params of [MethodReportAgent] (§2.2), in Herdr's
// key order. ResumeArgv is Herdr 0.9.2's addition (HERDR-0.9.md "Resume
// argv"); its place after the session fields is inferred, as the 0.9 source
// was not read.
type ReportAgentParams struct {
	PaneID           string     `json:"pane_id"`
	Source           string     `json:"source"`
	Agent            string     `json:"agent"`
	State            AgentState `json:"state"`
	Message          *string    `json:"message,omitempty"`
	Seq              *uint64    `json:"seq,omitempty"`
	AgentSessionID   *string    `json:"agent_session_id,omitempty"`
	AgentSessionPath *string    `json:"agent_session_path,omitempty"`
	ResumeArgv       []string   `json:"resume_argv,omitempty"`
}

// UnmarshalJSON requires pane_id, source, agent and state.
func (p *ReportAgentParams) UnmarshalJSON(data []byte) error {
	type plain ReportAgentParams
	return strictDecode(data, (*plain)(p), "pane_id", "source", "agent", "state")
}

// ReleaseAgentParams are the params of [MethodReleaseAgent] (§2.2).
type ReleaseAgentParams struct {
	PaneID string  `json:"pane_id"`
	Source string  `json:"source"`
	Agent  string  `json:"agent"`
	Seq    *uint64 `json:"seq,omitempty"`
}

// UnmarshalJSON requires pane_id, source and agent.
func (p *ReleaseAgentParams) UnmarshalJSON(data []byte) error {
	type plain ReleaseAgentParams
	return strictDecode(data, (*plain)(p), "pane_id", "source", "agent")
}

// ClearAgentAuthorityParams are the params of [MethodClearAgentAuthority]
// (§2.2): pane_id required, source and seq optional.
type ClearAgentAuthorityParams struct {
	PaneID string  `json:"pane_id"`
	Source *string `json:"source,omitempty"`
	Seq    *uint64 `json:"seq,omitempty"`
}

// UnmarshalJSON requires pane_id.
func (p *ClearAgentAuthorityParams) UnmarshalJSON(data []byte) error {
	type plain ClearAgentAuthorityParams
	return strictDecode(data, (*plain)(p), "pane_id")
}

// ReportAgentSessionParams are the params of [MethodReportAgentSession]
// (§2.2). ResumeArgv as in [ReportAgentParams].
type ReportAgentSessionParams struct {
	PaneID             string   `json:"pane_id"`
	Source             string   `json:"source"`
	Agent              string   `json:"agent"`
	Seq                *uint64  `json:"seq,omitempty"`
	AgentSessionID     *string  `json:"agent_session_id,omitempty"`
	AgentSessionPath   *string  `json:"agent_session_path,omitempty"`
	SessionStartSource *string  `json:"session_start_source,omitempty"`
	ResumeArgv         []string `json:"resume_argv,omitempty"`
}

// UnmarshalJSON requires pane_id, source and agent.
func (p *ReportAgentSessionParams) UnmarshalJSON(data []byte) error {
	type plain ReportAgentSessionParams
	return strictDecode(data, (*plain)(p), "pane_id", "source", "agent")
}

// PaneTarget are the params of [MethodPaneGet] (Herdr's PaneTarget).
type PaneTarget struct {
	PaneID string `json:"pane_id"`
}

// UnmarshalJSON requires pane_id.
func (p *PaneTarget) UnmarshalJSON(data []byte) error {
	type plain PaneTarget
	return strictDecode(data, (*plain)(p), "pane_id")
}

// AgentTarget are the params of [MethodAgentGet] and [MethodAgentFocus]
// (Herdr's AgentTarget).
type AgentTarget struct {
	Target string `json:"target"`
}

// UnmarshalJSON requires target.
func (p *AgentTarget) UnmarshalJSON(data []byte) error {
	type plain AgentTarget
	return strictDecode(data, (*plain)(p), "target")
}

// PaneListParams are the params of [MethodPaneList].
type PaneListParams struct {
	WorkspaceID *string `json:"workspace_id,omitempty"`
}

// UnmarshalJSON applies serde's key rules ([strictObject]).
func (p *PaneListParams) UnmarshalJSON(data []byte) error {
	type plain PaneListParams
	return strictDecode(data, (*plain)(p))
}

// PaneCurrentParams are the params of [MethodPaneCurrent].
type PaneCurrentParams struct {
	CallerPaneID *string `json:"caller_pane_id,omitempty"`
}

// UnmarshalJSON applies serde's key rules ([strictObject]).
func (p *PaneCurrentParams) UnmarshalJSON(data []byte) error {
	type plain PaneCurrentParams
	return strictDecode(data, (*plain)(p))
}

// strictObject reads the JSON object data as serde's derived Deserialize
// reads a struct with the fields known, and returns just those fields
// for encoding/json to decode: a key matches a field only in
// the same case (encoding/json would fold case; for serde "Pane_ID" is an
// unknown field, ignored), a known field given twice is an error (serde's
// "duplicate field"), unknown fields are ignored, even twice, and nothing
// but whitespace may follow the object (serde_json's "trailing
// characters").
func strictObject(data []byte, known ...string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, truncated(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("invalid type: expected an object")
	}
	fields := make(map[string]json.RawMessage, len(known))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, truncated(err)
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, truncated(err)
		}
		if !slices.Contains(known, key) {
			continue
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("duplicate field `%s`", key)
		}
		fields[key] = value
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, truncated(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing characters")
	}
	return fields, nil
}

// truncated names a decoder's EOF inside a value for what it is.
func truncated(err error) error {
	if errors.Is(err, io.EOF) {
		return errors.New("unexpected end of JSON input")
	}
	return err
}

// strictDecode decodes the object data into dst, a pointer to a struct,
// under serde's key rules ([strictObject]) for the fields of dst's json
// tags; a required field absent or null is serde's "missing field" (after
// any type error, as serde reports it).
func strictDecode(data []byte, dst any, required ...string) error {
	t := reflect.TypeOf(dst).Elem()
	known := make([]string, t.NumField())
	for i := range known {
		known[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	fields, err := strictObject(data, known...)
	if err != nil {
		return err
	}
	missing := ""
	for _, k := range required {
		if v, ok := fields[k]; !ok || bytes.Equal(v, []byte("null")) {
			delete(fields, k)
			missing = cmp.Or(missing, k)
		}
	}
	b, err := json.Marshal(fields)
	if err == nil {
		err = json.Unmarshal(b, dst)
	}
	if err == nil && missing != "" {
		err = fmt.Errorf("missing field `%s`", missing)
	}
	return err
}

// Response is one response line: {"id":…,"result":{…}} on success,
// {"id":…,"error":{…}} on failure (§2.3).
type Response struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Result types of a success response.
const (
	ResultOK   = "ok"   // report, release and report-session (Herdr's ResponseResult::Ok)
	ResultPong = "pong" // ping
)

var okResult = json.RawMessage(`{"type":"ok"}`)

// OK is the success response {"id":id,"result":{"type":"ok"}}.
func OK(id string) Response { return Response{ID: id, Result: okResult} }

// NewSuccess is a success response whose result is result marshalled as
// Herdr does; result must marshal to an object with a "type" member.
func NewSuccess(id string, result any) (Response, error) {
	raw, err := marshal(result)
	if err != nil {
		return Response{}, fmt.Errorf("wire: encode result: %w", err)
	}
	return Response{ID: id, Result: raw}, nil
}

// NewError is the error response {"id":id,"error":{"code":…,"message":…}}.
func NewError(id string, code ErrorCode, message string) Response {
	return Response{ID: id, Error: &Error{Code: code, Message: message}}
}

// Line returns the response as one JSON line ending in a newline.
func (r Response) Line() []byte {
	b, err := marshal(r)
	if err != nil {
		// Only a result that is not valid JSON can fail; NewSuccess and OK
		// never build one.
		panic("wire: encode response: " + err.Error())
	}
	return append(b, '\n')
}

// ResultType returns the "type" of a success response's result, or "".
func (r Response) ResultType() string {
	var t struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(r.Result, &t)
	return t.Type
}

// DecodeResponse parses a response line. It fails with
// [ErrMalformedResponse] unless the line is an object with a string id and
// exactly one of a result object with a string type, or an error with a
// string code.
func DecodeResponse(line []byte) (Response, error) {
	var raw struct {
		ID     *string         `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    *string `json:"code"`
			Message string  `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return Response{}, fmt.Errorf("%w: not a JSON object", ErrMalformedResponse)
	}
	if raw.ID == nil {
		return Response{}, fmt.Errorf("%w: no id", ErrMalformedResponse)
	}
	hasResult := raw.Result != nil && !bytes.Equal(raw.Result, []byte("null"))
	switch {
	case hasResult == (raw.Error != nil):
		return Response{}, fmt.Errorf("%w: want exactly one of result and error", ErrMalformedResponse)
	case raw.Error != nil && raw.Error.Code == nil:
		return Response{}, fmt.Errorf("%w: error without a code", ErrMalformedResponse)
	case raw.Error != nil:
		return Response{ID: *raw.ID, Error: &Error{Code: ErrorCode(*raw.Error.Code), Message: raw.Error.Message}}, nil
	}
	var t struct {
		Type *string `json:"type"`
	}
	if json.Unmarshal(raw.Result, &t) != nil || t.Type == nil {
		return Response{}, fmt.Errorf("%w: result without a type", ErrMalformedResponse)
	}
	return Response{ID: *raw.ID, Result: raw.Result}, nil
}

// Pong is the result of [MethodPing] (§2.4; Herdr's ResponseResult::Pong):
// the server's version (e.g. "0.8.2", or "0.8.2-preview.<id>"), its
// protocol and its capabilities.
type Pong struct {
	Type         string       `json:"type"` // "pong"
	Version      string       `json:"version"`
	Protocol     int          `json:"protocol"`
	Capabilities Capabilities `json:"capabilities"`
}

// Capabilities are a server's capabilities in a [Pong] (Herdr 0.8.2's
// ServerCapabilities). The 0.9.x set was not read; unknown members are
// ignored when decoding.
type Capabilities struct {
	LiveHandoff          bool `json:"live_handoff"`
	DetachedServerDaemon bool `json:"detached_server_daemon"`
}

// ErrorCode is the code of an error response.
type ErrorCode string

// Error codes. The first five are what the server answers to the agent
// methods and ping (§2.4); agent_not_found answers agent.get and
// agent.focus (§4), workspace_not_found pane.list for a workspace that does
// not exist (Herdr's src/app/creation.rs). server_not_running and
// protocol_mismatch are never on the socket: Herdr's CLI prints them
// (§1.5). The last two are Herdr 0.9.2's answers to a resume argv
// (HERDR-0.9.md "Resume argv").
const (
	CodeInvalidRequest    ErrorCode = "invalid_request"
	CodePaneNotFound      ErrorCode = "pane_not_found"
	CodeInvalidAgent      ErrorCode = "invalid_agent"
	CodeServerUnavailable ErrorCode = "server_unavailable"
	CodeAgentNotFound     ErrorCode = "agent_not_found"
	CodeWorkspaceNotFound ErrorCode = "workspace_not_found"
	CodeServerNotRunning  ErrorCode = "server_not_running"
	CodeProtocolMismatch  ErrorCode = "protocol_mismatch"
	CodeResumeNotAccepted ErrorCode = "resume_not_accepted"
	CodeInvalidResumeArgv ErrorCode = "invalid_resume_argv"
)

// Error is the error member of an error response. Its Error text holds the
// code only; Message is the server's text, for callers that choose to show
// it.
type Error struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
}

func (e *Error) Error() string { return "herdr answered " + string(e.Code) }

// marshal encodes v as compact JSON without HTML escaping, as serde_json
// does.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
