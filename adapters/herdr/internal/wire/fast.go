package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// The adapter sends a report or a release on every state change, and
// reflection-driven encoding/json was a sixth of a socket report's own CPU
// time. The two params types it sends, the envelope and the plain ok answer
// are therefore written and read by hand here, byte for byte as
// encoding/json (without HTML escaping) writes and reads them; anything
// else takes encoding/json's path. wire_test.go's TestFastPathsMatchJSON
// holds the two to the same output.

// appendParams appends the JSON of params, when it is one of the types
// written by hand, and reports whether it was.
func appendParams(b []byte, params any) ([]byte, bool) {
	switch p := params.(type) {
	case ReportAgentParams:
		return p.appendJSON(b)
	case *ReportAgentParams:
		if p != nil {
			return p.appendJSON(b)
		}
	case ReleaseAgentParams:
		return p.appendJSON(b)
	case *ReleaseAgentParams:
		if p != nil {
			return p.appendJSON(b)
		}
	}
	return b, false
}

func (p *ReportAgentParams) appendJSON(b []byte) ([]byte, bool) {
	if !p.State.Valid() {
		return b, false // encoding/json's error
	}
	b, ok := appendAgentTarget(b, p.PaneID, p.Source, p.Agent)
	b = append(b, `,"state":"`...)
	b = append(b, p.State...)
	b = append(b, '"')
	if p.Message != nil {
		b = append(b, `,"message":`...)
		b, ok = appendString(b, *p.Message, ok)
	}
	if p.Seq != nil {
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, *p.Seq, 10)
	}
	if p.AgentSessionID != nil {
		b = append(b, `,"agent_session_id":`...)
		b, ok = appendString(b, *p.AgentSessionID, ok)
	}
	if p.AgentSessionPath != nil {
		b = append(b, `,"agent_session_path":`...)
		b, ok = appendString(b, *p.AgentSessionPath, ok)
	}
	if len(p.ResumeArgv) > 0 {
		b = append(b, `,"resume_argv":[`...)
		for i, w := range p.ResumeArgv {
			if i > 0 {
				b = append(b, ',')
			}
			b, ok = appendString(b, w, ok)
		}
		b = append(b, ']')
	}
	return append(b, '}'), ok
}

func (p *ReleaseAgentParams) appendJSON(b []byte) ([]byte, bool) {
	b, ok := appendAgentTarget(b, p.PaneID, p.Source, p.Agent)
	if p.Seq != nil {
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, *p.Seq, 10)
	}
	return append(b, '}'), ok
}

// appendAgentTarget opens the params object with the three members both
// agent methods start with.
func appendAgentTarget(b []byte, pane, source, agent string) ([]byte, bool) {
	ok := true
	b = append(b, `{"pane_id":`...)
	b, ok = appendString(b, pane, ok)
	b = append(b, `,"source":`...)
	b, ok = appendString(b, source, ok)
	b = append(b, `,"agent":`...)
	return appendString(b, agent, ok)
}

// appendString appends s as a JSON string when every byte of it is
// printable ASCII other than '"' and '\', which encoding/json writes as
// they are; otherwise it reports false (ok is false from then on), and the
// caller takes encoding/json's path, which decides every escape.
func appendString(b []byte, s string, ok bool) ([]byte, bool) {
	if !ok {
		return b, false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return b, false
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// appendLine appends the request line of id, method and params (compact
// JSON, as marshal writes a Request) and a newline, and reports whether it
// could write it by hand.
func appendLine(b []byte, id string, method Method, params json.RawMessage) ([]byte, bool) {
	ok := true
	b = append(b, `{"id":`...)
	b, ok = appendString(b, id, ok)
	b = append(b, `,"method":`...)
	b, ok = appendString(b, string(method), ok)
	if !ok {
		return b, false
	}
	b = append(b, `,"params":`...)
	var buf bytes.Buffer
	buf.Grow(len(params))
	if json.Compact(&buf, params) != nil {
		return b, false // encoding/json's error
	}
	b = append(b, buf.Bytes()...)
	return append(b, "}\n"...), true
}

// The plain success answer, {"id":<id>,"result":{"type":"ok"}}, as Herdr
// writes it (serde's compact form, CONTRACT §2.3).
const (
	okPrefix = `{"id":"`
	okSuffix = `","result":{"type":"ok"}}`
)

// decodeOK decodes line when it is the plain success answer with an id of
// printable ASCII (no escapes), trailing white space aside.
func decodeOK(line []byte) (Response, bool) {
	line = bytes.TrimRight(line, " \t\r\n")
	if len(line) < len(okPrefix)+len(okSuffix) || string(line[:len(okPrefix)]) != okPrefix || string(line[len(line)-len(okSuffix):]) != okSuffix {
		return Response{}, false
	}
	id := line[len(okPrefix) : len(line)-len(okSuffix)]
	for _, c := range id {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return Response{}, false
		}
	}
	return Response{ID: string(id), Result: okResult}, true
}
