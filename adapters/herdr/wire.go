package herdr

import (
	"bytes"
	"encoding/json"
)

// The socket wire of Herdr (CONTRACT §2): one request line of JSON per
// connection, one response line back.

// Error codes the adapter acts on.
const (
	codeInvalidResume     = "invalid_resume_argv" // 0.9.2+: the whole report was refused
	codeResumeNotAccepted = "resume_not_accepted" // 0.9.2+: the reporter does not hold the pane yet
)

// maxResponse is the most bytes of a response line that are read; a longer
// one is a failed call. Responses are never logged.
const maxResponse = 64 << 10

// Request ids. Herdr echoes them; any string is accepted.
const (
	idPing    = "panestate:ping"
	idRequest = "panestate:request"
)

// pingLine is the ping request.
var pingLine = []byte(`{"id":"` + idPing + `","method":"ping","params":{}}` + "\n")

// reportParams are pane.report_agent's params, in Herdr's order; absent
// optional fields are omitted, as the CLI omits them.
type reportParams struct {
	PaneID           string   `json:"pane_id"`
	Source           string   `json:"source"`
	Agent            string   `json:"agent"`
	State            string   `json:"state"`
	Message          string   `json:"message,omitempty"`
	Seq              uint64   `json:"seq"`
	AgentSessionID   string   `json:"agent_session_id,omitempty"`
	AgentSessionPath string   `json:"agent_session_path,omitempty"`
	ResumeArgv       []string `json:"resume_argv,omitempty"`
}

// releaseParams are pane.release_agent's params.
type releaseParams struct {
	PaneID string `json:"pane_id"`
	Source string `json:"source"`
	Agent  string `json:"agent"`
	Seq    uint64 `json:"seq"`
}

type wireRequest struct {
	ID     string `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params"`
}

// line returns req as one request line, newline included.
func (req *request) line() []byte {
	w := wireRequest{ID: idRequest, Method: req.op.method()}
	if req.op == OpRelease {
		w.Params = releaseParams{PaneID: req.pane, Source: req.source, Agent: req.agent, Seq: req.seq}
	} else {
		w.Params = reportParams{
			PaneID: req.pane, Source: req.source, Agent: req.agent, State: req.state,
			Message: req.message, Seq: req.seq,
			AgentSessionID: req.sessionID, AgentSessionPath: req.sessionPath,
			ResumeArgv: req.resume,
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil { // strings and numbers only: cannot fail
		panic(err)
	}
	return b.Bytes() // Encode ends the line with "\n"
}

// wireResponse is a response line: a result or an error.
type wireResponse struct {
	ID     string `json:"id"`
	Result *struct {
		Type     string `json:"type"`
		Version  string `json:"version"`
		Protocol int    `json:"protocol"`
	} `json:"result"`
	Error *struct {
		Code string `json:"code"`
	} `json:"error"`
}
