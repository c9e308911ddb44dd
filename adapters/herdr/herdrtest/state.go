package herdrtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// stateMagic marks a file as an emulated server's state. A file at the socket
// path without it (a real Herdr socket, a stray file) reads as "no server".
const stateMagic = "herdrtest-state/1"

// serverState is the emulated Herdr server: everything a real server keeps in
// memory that the pane-agent commands touch. It lives in the JSON file whose
// path is HERDR_SOCKET_PATH.
type serverState struct {
	Magic   string       `json:"magic"`
	Counter uint64       `json:"state_change_counter"` // server-global state_change_seq source
	FailUse int          `json:"fail_used"`            // Fault.FailFirst failures already served
	Panes   []*paneState `json:"panes"`
}

// paneState is one pane (and its one terminal).
type paneState struct {
	ID             string            `json:"id"`
	WorkspaceID    string            `json:"workspace_id"`
	TabID          string            `json:"tab_id"`
	TerminalID     string            `json:"terminal_id"`
	InView         bool              `json:"in_view"` // active tab of active workspace, client focused
	Seen           bool              `json:"seen"`
	Authority      *authority        `json:"authority,omitempty"`
	Session        *sessionRef       `json:"session,omitempty"` // an official integration's native session
	HWM            map[string]uint64 `json:"hwm,omitempty"`     // per-source sequence high-water marks
	Label          string            `json:"label,omitempty"`   // effective label last applied
	State          string            `json:"state"`             // effective state last applied
	StateChangeSeq uint64            `json:"state_change_seq"`
}

// authority is Herdr's single HookAuthority slot.
type authority struct {
	Source     string    `json:"source"`
	Agent      string    `json:"agent"`
	State      string    `json:"state"`
	Message    *string   `json:"message,omitempty"` // stored, never surfaced
	ReportedAt time.Time `json:"reported_at"`
	// Session is the authority's session_ref: only a full-lifecycle
	// official pair's report carries one.
	Session *sessionRef `json:"session,omitempty"`
}

// sessionRef is a native session identity reported by an official pair.
type sessionRef struct {
	Source string `json:"source"`
	Agent  string `json:"agent"`
	ID     string `json:"id"`
	Path   string `json:"path,omitempty"`
}

// newServerState builds a fresh server with the given panes, all seen, none
// with an agent.
func newServerState(panes []string, inView map[string]bool) *serverState {
	st := &serverState{Magic: stateMagic}
	for i, id := range panes {
		ws := workspaceOf(id)
		st.Panes = append(st.Panes, &paneState{
			ID:          id,
			WorkspaceID: ws,
			TabID:       ws + ":t1",
			TerminalID:  fmt.Sprintf("term_64000000000%02x", i+1),
			InView:      inView[id],
			Seen:        true,
			State:       stateUnknown,
		})
	}
	return st
}

// workspaceOf returns the workspace part of a canonical "wX:pY" pane id, or
// "w1" for any other form.
func workspaceOf(pane string) string {
	ws, _, ok := strings.Cut(pane, ":")
	if ok && len(ws) > 1 && ws[0] == 'w' {
		return ws
	}
	return "w1"
}

func (st *serverState) pane(id string) *paneState {
	for _, p := range st.Panes {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// errNoServer is returned by loadState when no emulated server state is at
// the path.
var errNoServer = errors.New("herdrtest: no server")

// loadState reads the state at path. Anything that is not a regular file
// holding a herdrtest state is "no server", as a refused connection is.
func loadState(path string) (*serverState, error) {
	if path == "" {
		return nil, errNoServer
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errNoServer
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errNoServer
		}
		return nil, fmt.Errorf("herdrtest: read state: %w", err)
	}
	var st serverState
	if json.Unmarshal(data, &st) != nil || st.Magic != stateMagic {
		return nil, errNoServer
	}
	return &st, nil
}

// saveState writes st to path atomically (temporary file, then rename).
func saveState(path string, st *serverState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("herdrtest: encode state: %w", err)
	}
	return writeFileAtomic(path, data)
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".herdrtest-*")
	if err != nil {
		return fmt.Errorf("herdrtest: write %s: %w", filepath.Base(path), err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("herdrtest: write %s: %w", filepath.Base(path), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("herdrtest: write %s: %w", filepath.Base(path), err)
	}
	return nil
}

const (
	stateIdle    = "idle"
	stateWorking = "working"
	stateBlocked = "blocked"
	stateUnknown = "unknown"
	statusDone   = "done"
)

// serverError is a JSON error answer from the emulated server.
type serverError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func paneNotFound(id string) *serverError {
	return &serverError{Code: "pane_not_found", Message: "pane " + id + " not found"}
}

var errInvalidAgent = &serverError{Code: "invalid_agent", Message: "agent label must not be empty"}

// agentRequest is a parsed pane.report_agent, pane.release_agent or
// pane.report_agent_session request.
type agentRequest struct {
	method      string // report-agent, release-agent, report-agent-session
	pane        string
	source      string
	agent       string
	state       string
	message     *string
	seq         *uint64
	sessionID   *string
	sessionPath *string
	startSource *string
}

// apply runs req against the server state as Herdr 0.8.2 would (CONTRACT §3).
// A nil error means the server answered ok, whether or not anything changed.
func (st *serverState) apply(req *agentRequest, now time.Time) *serverError {
	p := st.pane(req.pane)
	if p == nil {
		return paneNotFound(req.pane)
	}
	agent, ok := normalizeAgentLabel(req.agent)
	if !ok {
		return errInvalidAgent
	}
	class := classifyPair(req.source, agent)
	switch req.method {
	case "report-agent":
		st.report(p, req, agent, class, now)
	case "release-agent":
		st.release(p, req, agent, class)
	case "report-agent-session":
		reportSession(p, req, agent, class)
	}
	return nil
}

func (st *serverState) report(p *paneState, req *agentRequest, agent string, class pairClass, now time.Time) {
	switch class {
	case pairReserved:
		// Herdr owns this agent's state natively: only the session is kept.
		if ref := sessionFromReport(req, agent, class); ref != nil {
			p.Session = ref
		}
		return
	case pairSessionOnly:
		return
	}
	// A stored native session of another pair blocks every other reporter
	// (§3.2 step 5): a persisted official session, or the session_ref of
	// the live authority (a full-lifecycle pair's). The takeover that could
	// lift it needs a session and a foreground process, which the emulator
	// does not model.
	if blocksReport(p.Session, req.source, agent) {
		return
	}
	if a := p.Authority; a != nil && blocksReport(a.Session, req.source, agent) {
		return
	}
	if !acceptSeq(p, req.source, req.seq) {
		return
	}
	var ref *sessionRef
	if class == pairFullLifecycle {
		ref = sessionFromReport(req, agent, class)
	}
	p.Session = nil
	p.Authority = &authority{Source: req.source, Agent: agent, State: req.state, Message: req.message, ReportedAt: now, Session: ref}
	st.recompute(p)
}

// blocksReport reports whether the stored session ref blocks a report by
// (source, agent): it is set and belongs to another pair.
func blocksReport(ref *sessionRef, source, agent string) bool {
	return ref != nil && (ref.Source != source || ref.Agent != agent)
}

func (st *serverState) release(p *paneState, req *agentRequest, agent string, class pairClass) {
	if class != pairCustom {
		return // official releases are dropped
	}
	a := p.Authority
	if a == nil || a.Agent != agent || a.Source != req.source {
		// Not the owner, or nothing to release. (The real server could
		// still release a label owned by process detection, which the
		// emulator does not model.)
		return
	}
	if !acceptSeq(p, req.source, req.seq) {
		return
	}
	p.Authority = nil
	st.recompute(p)
}

// reportSession handles pane.report_agent_session. Only official pairs carry
// a session reference, so for custom pairs it is a complete no-op.
func reportSession(p *paneState, req *agentRequest, agent string, class pairClass) {
	ref := sessionFromReport(req, agent, class)
	if ref == nil {
		return
	}
	if !acceptSeq(p, req.source, req.seq) {
		return
	}
	p.Session = ref
}

// sessionFromReport returns the session reference Herdr would keep, or nil:
// always nil for custom pairs and for invalid ids.
func sessionFromReport(req *agentRequest, agent string, class pairClass) *sessionRef {
	if class == pairCustom || req.sessionID == nil {
		return nil
	}
	id := *req.sessionID
	if id == "" || len(id) > 512 || strings.ContainsFunc(id, isControl) {
		return nil
	}
	ref := &sessionRef{Source: req.source, Agent: agent, ID: id}
	if req.sessionPath != nil && (agent == "pi" || agent == "omp") {
		path := *req.sessionPath
		if path != "" && len(path) <= 4096 && filepath.IsAbs(path) && !strings.ContainsFunc(path, isControl) {
			ref.Path = path
		}
	}
	return ref
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// acceptSeq is Herdr's per-(pane, source) sequence check: a sequenced request
// passes iff it is above the high-water mark (and raises it); an unsequenced
// one passes iff the source never used a sequence on this pane.
func acceptSeq(p *paneState, source string, seq *uint64) bool {
	hwm, has := p.HWM[source]
	if seq == nil {
		return !has
	}
	if has && *seq <= hwm {
		return false
	}
	if p.HWM == nil {
		p.HWM = map[string]uint64{}
	}
	p.HWM[source] = *seq
	return true
}

// recompute derives the effective label and state from the authority and,
// when they changed, bumps state_change_seq and updates seen (CONTRACT §3.9).
func (st *serverState) recompute(p *paneState) {
	label, state := "", stateUnknown
	if a := p.Authority; a != nil {
		label, state = a.Agent, a.State
	}
	if label == p.Label && state == p.State {
		return
	}
	prevLabel, prevState := p.Label, p.State
	p.Label, p.State = label, state
	st.Counter++
	p.StateChangeSeq = st.Counter
	switch {
	case state != stateIdle:
		p.Seen = true
	case prevState == stateWorking || prevState == stateBlocked,
		prevState == stateUnknown && prevLabel == label && label != "":
		// A completion: seen only if the user is looking at the pane.
		p.Seen = p.InView
	}
}

// status is the API-visible agent_status of p.
func (p *paneState) status() string {
	if p.State == stateIdle && !p.Seen {
		return statusDone
	}
	return p.State
}

// paneInfo is the emulated PaneInfo (CONTRACT §4), fields in Herdr's
// serialization order; fields the emulator has no value for are omitted.
type paneInfo struct {
	PaneID      string `json:"pane_id"`
	TerminalID  string `json:"terminal_id"`
	WorkspaceID string `json:"workspace_id"`
	TabID       string `json:"tab_id"`
	Focused     bool   `json:"focused"`
	Agent       string `json:"agent,omitempty"`
	AgentStatus string `json:"agent_status"`
	Revision    uint64 `json:"revision"`
}

func (p *paneState) paneInfo() paneInfo {
	return paneInfo{
		PaneID:      p.ID,
		TerminalID:  p.TerminalID,
		WorkspaceID: p.WorkspaceID,
		TabID:       p.TabID,
		Focused:     p.InView,
		Agent:       p.Label,
		AgentStatus: p.status(),
	}
}

func (p *paneState) agentInfo() AgentInfo {
	return AgentInfo{
		TerminalID:     p.TerminalID,
		Agent:          p.Label,
		AgentStatus:    p.status(),
		WorkspaceID:    p.WorkspaceID,
		TabID:          p.TabID,
		PaneID:         p.ID,
		Focused:        p.InView,
		StateChangeSeq: p.StateChangeSeq,
		Found:          p.Label != "",
	}
}
