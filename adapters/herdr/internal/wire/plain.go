package wire

import "strconv"

// The emulated server decodes the params of every report and release it
// is sent, and encoding/json's reflection was the largest part of its own
// cost per request. A plain object (plainFields: compact, known keys once,
// no escape in a key) whose values are plain strings and a plain seq is
// therefore read here without a decoder; anything else, null included,
// takes the decoder's path, which decides every error. wire_test.go's
// TestPlainParamsAreDecoded holds the two paths to the same result. The
// server's most frequent answer, ok with a plain id, is written by hand
// for the same reason (TestOKLineIsMarshalled).

var reportAgentKeys = []string{"pane_id", "source", "agent", "state", "message", "seq", "agent_session_id", "agent_session_path", "resume_argv"}

// decodePlain sets p from data and reports true when data is a plain
// report: the required fields and any optional one but resume_argv plain.
func (p *ReportAgentParams) decodePlain(data []byte) bool {
	var v [9][]byte
	if !plainFields(data, reportAgentKeys, v[:]) || v[8] != nil {
		return false
	}
	var q ReportAgentParams
	var ok [6]bool
	q.PaneID, q.Source, q.Agent, ok[0] = plainTarget(v[:3])
	var state string
	state, ok[1] = plainString(v[3])
	q.State = AgentState(state)
	q.Message, ok[2] = plainOptString(v[4])
	q.Seq, ok[3] = plainOptUint(v[5])
	q.AgentSessionID, ok[4] = plainOptString(v[6])
	q.AgentSessionPath, ok[5] = plainOptString(v[7])
	if ok != [6]bool{true, true, true, true, true, true} || !q.State.Valid() {
		return false
	}
	*p = q
	return true
}

var releaseAgentKeys = []string{"pane_id", "source", "agent", "seq"}

// decodePlain sets p from data and reports true when data is a plain
// release.
func (p *ReleaseAgentParams) decodePlain(data []byte) bool {
	var v [4][]byte
	if !plainFields(data, releaseAgentKeys, v[:]) {
		return false
	}
	var q ReleaseAgentParams
	var targetOK, seqOK bool
	q.PaneID, q.Source, q.Agent, targetOK = plainTarget(v[:3])
	q.Seq, seqOK = plainOptUint(v[3])
	if !targetOK || !seqOK {
		return false
	}
	*p = q
	return true
}

// plainTarget reads the pane_id, source and agent values every agent
// params object starts with, all three required plain strings.
func plainTarget(v [][]byte) (pane, source, agent string, ok bool) {
	pane, okPane := plainString(v[0])
	source, okSource := plainString(v[1])
	agent, okAgent := plainString(v[2])
	return pane, source, agent, okPane && okSource && okAgent
}

// plainOptString reads an optional plain string: nil for an absent value.
func plainOptString(v []byte) (*string, bool) {
	if v == nil {
		return nil, true
	}
	s, ok := plainString(v)
	if !ok {
		return nil, false
	}
	return &s, true
}

// plainOptUint reads an optional JSON integer that fits a uint64: nil for
// an absent value. A sign, a fraction or an exponent is not plain.
func plainOptUint(v []byte) (*uint64, bool) {
	if v == nil {
		return nil, true
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return nil, false
	}
	return &n, true
}

// appendOKLine appends r's line, newline included, and reports true when r
// is an ok answer whose id encoding/json writes as it is.
func (r Response) appendOKLine(b []byte) ([]byte, bool) {
	if r.Error != nil || string(r.Result) != string(okResult) {
		return b, false
	}
	b, ok := appendString(append(b, `{"id":`...), r.ID, true)
	if !ok {
		return b, false
	}
	return append(b, `,"result":{"type":"ok"}}`+"\n"...), true
}
