package herdrtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
)

// serverState is the emulated Herdr server's memory: everything a real
// server keeps that the pane-agent methods touch. A restart replaces it
// whole (CONTRACT §3.3: neither authorities nor high-water marks survive).
type serverState struct {
	Counter uint64 // server-global state_change_seq source
	Panes   []*paneState
}

// paneState is one pane (and its one terminal).
type paneState struct {
	ID             string
	WorkspaceID    string
	TabID          string
	TerminalID     string
	InView         bool // active tab of active workspace, client focused
	Seen           bool
	Authority      *authority
	Session        *sessionRef       // an official integration's native session
	HWM            map[string]uint64 // per-source sequence high-water marks
	Resume         []string          // the last accepted resume argv (0.9.2+)
	Label          string            // effective label last applied
	State          wire.AgentState   // effective state last applied
	StateChangeSeq uint64
}

// authority is Herdr's single HookAuthority record.
type authority struct {
	Source     string
	Agent      string
	State      wire.AgentState
	Message    *string // stored, never surfaced
	ReportedAt time.Time
	// Session is the authority's session_ref: only a full-lifecycle
	// official pair's report carries one.
	Session *sessionRef
}

// sessionRef is a native session identity reported by an official pair.
type sessionRef struct {
	Source string
	Agent  string
	ID     string
	Path   string
}

// newServerState builds a fresh server with the given panes, all seen, none
// with an agent.
func newServerState(panes []string, inView map[string]bool) *serverState {
	st := &serverState{}
	for i, id := range panes {
		ws := workspaceOf(id)
		st.Panes = append(st.Panes, &paneState{
			ID:          id,
			WorkspaceID: ws,
			TabID:       ws + ":t1",
			TerminalID:  fmt.Sprintf("term_64000000000%02x", i+1),
			InView:      inView[id],
			Seen:        true,
			State:       wire.StateUnknown,
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

// Status is what Herdr shows for a pane's agent: its API agent_status
// (CONTRACT §3.9, §4). It is not the state a reporter sends
// ([wire.AgentState]): an idle state the user has not seen shows as done.
type Status string

// The five statuses.
const (
	StatusIdle    Status = "idle"
	StatusWorking Status = "working"
	StatusBlocked Status = "blocked"
	StatusDone    Status = "done"
	StatusUnknown Status = "unknown"
)

// MarshalText returns the status as Herdr spells it.
func (s Status) MarshalText() ([]byte, error) { return []byte(s), nil }

// UnmarshalText accepts the five statuses.
func (s *Status) UnmarshalText(text []byte) error {
	switch v := Status(text); v {
	case StatusIdle, StatusWorking, StatusBlocked, StatusDone, StatusUnknown:
		*s = v
		return nil
	}
	return fmt.Errorf("herdrtest: unknown status %q", text)
}

func paneNotFound(id string) *wire.Error {
	return &wire.Error{Code: wire.CodePaneNotFound, Message: "pane " + id + " not found"}
}

var errInvalidAgent = &wire.Error{Code: wire.CodeInvalidAgent, Message: "agent label must not be empty"}

// agentRequest is a decoded pane.report_agent, pane.release_agent or
// pane.report_agent_session request.
type agentRequest struct {
	method      wire.Method
	pane        string
	source      string
	agent       string
	state       wire.AgentState
	message     *string
	seq         *uint64
	sessionID   *string
	sessionPath *string
	startSource *string
	resume      []string // resume_argv (0.9.2+); empty means none
}

// apply runs req against the server state as Herdr would (CONTRACT §3;
// HERDR-0.9.md for resume). A nil error means the server answered ok;
// applied says whether the request took effect (an accepted report or
// release, a stored session) rather than being silently ignored.
func (st *serverState) apply(req *agentRequest, v version, now time.Time) (applied bool, e *wire.Error) {
	p := st.pane(req.pane)
	if p == nil {
		return false, paneNotFound(req.pane)
	}
	agent, ok := normalizeAgentLabel(req.agent)
	if !ok {
		return false, errInvalidAgent
	}
	class := classifyPair(req.source, agent)
	resume := v.resume && len(req.resume) > 0 && req.method != wire.MethodReleaseAgent
	if resume {
		if e := checkResume(p, req, agent); e != nil {
			return false, e
		}
	}
	switch req.method {
	case wire.MethodReportAgent:
		applied = st.report(p, req, agent, class, now)
	case wire.MethodReleaseAgent:
		applied = st.release(p, req, agent, class)
	case wire.MethodReportAgentSession:
		applied = reportSession(p, req, agent, class)
	}
	if resume && (applied || req.method == wire.MethodReportAgentSession) {
		p.Resume = slices.Clone(req.resume)
	}
	return applied, nil
}

// Resume argv limits quoted by a third party from Herdr 0.9's
// src/agent_resume.rs (HERDR-0.9.md, unverified in Herdr's source).
const (
	maxResumeWords = 64
	maxResumeBytes = 8192
)

// checkResume applies Herdr 0.9.2's rules to a resume argv (HERDR-0.9.md
// "Resume argv"): invalid_resume_argv for an argv that breaks them, then
// resume_not_accepted unless the reporter holds the pane. Either error
// means nothing of the request is applied.
//
// Inferred: the order of the two checks; that "hold the pane" means the
// authority has this source and normalised label; that the byte limit
// counts the words' bytes; the messages' wording, except the
// resume_not_accepted text a third party quoted. Not emulated: "the first
// word is found on PATH" (whose PATH, and when, is not stated).
func checkResume(p *paneState, req *agentRequest, agent string) *wire.Error {
	invalid := func(why string) *wire.Error {
		return &wire.Error{Code: wire.CodeInvalidResumeArgv, Message: "invalid resume_argv: " + why}
	}
	if strings.HasPrefix(req.source, "herdr:") {
		return invalid("the source must not start with herdr:")
	}
	if len(req.resume) > maxResumeWords {
		return invalid(fmt.Sprintf("more than %d arguments", maxResumeWords))
	}
	size := 0
	for _, w := range req.resume {
		size += len(w)
		if strings.ContainsRune(w, '\'') {
			return invalid("an argument contains an apostrophe")
		}
		if strings.ContainsFunc(w, isControl) {
			return invalid("an argument contains a control character")
		}
	}
	if size > maxResumeBytes {
		return invalid(fmt.Sprintf("more than %d bytes", maxResumeBytes))
	}
	if !plainCommand(req.resume[0]) {
		return invalid("the first argument must be a plain command name")
	}
	if a := p.Authority; a == nil || a.Source != req.source || a.Agent != agent {
		return &wire.Error{Code: wire.CodeResumeNotAccepted,
			Message: "resume_argv requires the reporter to hold the pane; report its state with pane.report_agent first"}
	}
	return nil
}

// plainCommand reports whether w matches [A-Za-z0-9_.-]+ and does not start
// with '-'.
func plainCommand(w string) bool {
	return w != "" && w[0] != '-' && nameChars(w)
}

// nameChars reports whether every byte of s is one of A-Z a-z 0-9 _ . -,
// the characters Herdr allows in a command name and in a session name.
func nameChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func (st *serverState) report(p *paneState, req *agentRequest, agent string, class pairClass, now time.Time) bool {
	switch class {
	case pairReserved:
		// Herdr owns this agent's state natively: only the session is kept.
		if ref := sessionFromReport(req, agent, class); ref != nil {
			p.Session = ref
			return true
		}
		return false
	case pairSessionOnly:
		return false
	}
	// A stored native session of another pair blocks every other reporter
	// (§3.2 step 5): a persisted official session, or the session_ref of
	// the live authority (a full-lifecycle pair's). The takeover that could
	// lift it needs a session and a foreground process, which the emulator
	// does not model.
	if blocksReport(p.Session, req.source, agent) {
		return false
	}
	if a := p.Authority; a != nil && blocksReport(a.Session, req.source, agent) {
		return false
	}
	if !acceptSeq(p, req.source, req.seq) {
		return false
	}
	var ref *sessionRef
	if class == pairFullLifecycle {
		ref = sessionFromReport(req, agent, class)
	}
	p.Session = nil
	p.Authority = &authority{Source: req.source, Agent: agent, State: req.state, Message: req.message, ReportedAt: now, Session: ref}
	st.recompute(p)
	return true
}

// blocksReport reports whether the stored session ref blocks a report by
// (source, agent): it is set and belongs to another pair.
func blocksReport(ref *sessionRef, source, agent string) bool {
	return ref != nil && (ref.Source != source || ref.Agent != agent)
}

func (st *serverState) release(p *paneState, req *agentRequest, agent string, class pairClass) bool {
	if class != pairCustom {
		return false // official releases are dropped
	}
	a := p.Authority
	if a == nil || a.Agent != agent || a.Source != req.source {
		// Not the owner, or nothing to release. (The real server could
		// still release a label owned by process detection, which the
		// emulator does not model.)
		return false
	}
	if !acceptSeq(p, req.source, req.seq) {
		return false
	}
	p.Authority = nil
	st.recompute(p)
	return true
}

// clearAuthority handles pane.clear_agent_authority (CONTRACT §3.5): it
// clears the authority when source is omitted or is the authority's, after
// the same sequence check as the other agent methods, and takes no label.
// Inferred: as for a release, a pane with no authority, or one held by
// another source, is a no-op that leaves the high-water mark alone; and an
// omitted source makes no sequence check (there is no source to key it
// on).
func (st *serverState) clearAuthority(p *paneState, source *string, seq *uint64) bool {
	a := p.Authority
	if a == nil || source != nil && *source != a.Source {
		return false
	}
	if source != nil && !acceptSeq(p, *source, seq) {
		return false
	}
	p.Authority = nil
	st.recompute(p)
	return true
}

// reportSession handles pane.report_agent_session. Only official pairs carry
// a session reference, so for custom pairs it is a complete no-op.
func reportSession(p *paneState, req *agentRequest, agent string, class pairClass) bool {
	ref := sessionFromReport(req, agent, class)
	if ref == nil {
		return false
	}
	if !acceptSeq(p, req.source, req.seq) {
		return false
	}
	p.Session = ref
	return true
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
	label, state := "", wire.StateUnknown
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
	case state != wire.StateIdle:
		p.Seen = true
	case prevState == wire.StateWorking || prevState == wire.StateBlocked,
		prevState == wire.StateUnknown && prevLabel == label && label != "":
		// A completion: seen only if the user is looking at the pane.
		p.Seen = p.InView
	}
}

// status is the API-visible agent_status of p.
func (p *paneState) status() Status {
	if p.State == wire.StateIdle && !p.Seen {
		return StatusDone
	}
	return Status(p.State)
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
	AgentStatus Status `json:"agent_status"`
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
