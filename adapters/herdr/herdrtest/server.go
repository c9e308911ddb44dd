package herdrtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
	"github.com/panestate/panestate/internal/filelock"
)

// server is the emulated Herdr server: a listener at the socket path and
// the state behind it. Requests from every connection are handled one at a
// time, under mu, in the order their lines arrive (CONTRACT §2.1); the
// connection goroutines only read, wait and write.
type server struct {
	v       version
	socket  string
	dir     string // the emulator's directory: invocation log and lock
	selfPID int
	panes   []string

	// life serialises start, stop and listening changes.
	life sync.Mutex
	wg   sync.WaitGroup // the accept loop and connection goroutines

	mu       sync.Mutex
	st       *serverState // nil while stopped
	inView   map[string]bool
	resume   map[string][]string // accepted resume argv per pane; survives restarts
	fault    Fault
	failUsed int
	arrival  int
	records  []*record
	changed  chan struct{} // closed and replaced on every change
	// lineTimeout is RequestLineTimeout; tests shorten it.
	lineTimeout time.Duration
	// writeTimeout bounds each write of a response: Herdr's
	// STREAM_WRITE_TIMEOUT, 5 s (src/api/server.rs:31,159-161); tests
	// shorten it.
	writeTimeout time.Duration
	// onDeadline, when set (by tests), is called as a connection sets a
	// read (true) or a write deadline.
	onDeadline func(read bool)
	cliPIDs    map[int]bool // fake CLI processes seen in the log: pid → still running
	hold       *Hold        // the hold in force, or nil
	queue      []*turn      // held agent requests and those behind them, in arrival order
	logOff     int64
	ln         net.Listener
	quit       chan struct{} // closed when the listener stops
	conns      map[net.Conn]struct{}
	closed     bool
}

// record is one request the server received, from any client.
type record struct {
	arrival int
	line    []byte // the request line, trimmed
	pid     int    // the peer's pid, when the platform tells it
	cli     bool   // the peer is one of this emulator's fake CLI processes
	start   time.Time
	end     time.Time
	id      string
	method  wire.Method
	params  json.RawMessage
	code    wire.ErrorCode
	exit    int // 0 ok, 1 error response or garbage, -1 no response
	hung    bool
	applied bool
	pane    string
	status  Status // what the pane showed after the request
	agent   string // the agent label it showed then, "" for none
}

func newServer(v version, socket, dir string, panes []string, inView map[string]bool) *server {
	return &server{
		v: v, socket: socket, dir: dir, selfPID: os.Getpid(), lineTimeout: wire.RequestLineTimeout,
		writeTimeout: responseWriteTimeout,
		panes:        panes, inView: inView, resume: map[string][]string{},
		changed: make(chan struct{}), cliPIDs: map[int]bool{}, conns: map[net.Conn]struct{}{},
	}
}

// notifyLocked wakes every waiter. s.mu is held.
func (s *server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// start replaces the state by a fresh one, as a restart would, and listens
// unless the ServerNotRunning fault is set.
func (s *server) start() error {
	s.life.Lock()
	defer s.life.Unlock()
	s.stopLocked()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	s.st = newServerState(s.panes, s.inView)
	for _, p := range s.st.Panes {
		p.Resume = s.resume[p.ID]
	}
	listen := !s.fault.ServerNotRunning
	s.notifyLocked()
	s.mu.Unlock()
	if listen {
		return s.listenLocked()
	}
	return nil
}

// stop forgets the state and stops listening.
func (s *server) stop() {
	s.life.Lock()
	defer s.life.Unlock()
	s.stopLocked()
}

func (s *server) stopLocked() {
	s.unlistenLocked()
	s.mu.Lock()
	s.st = nil
	s.notifyLocked()
	s.mu.Unlock()
}

// close stops the server for good.
func (s *server) close() {
	s.life.Lock()
	defer s.life.Unlock()
	s.stopLocked()
	s.mu.Lock()
	s.closed = true
	s.notifyLocked()
	s.mu.Unlock()
}

var errClosed = errors.New("herdrtest: closed")

// setListening follows a change of the ServerNotRunning fault.
func (s *server) setListening(on bool) error {
	s.life.Lock()
	defer s.life.Unlock()
	s.mu.Lock()
	running, listening := s.st != nil && !s.closed, s.ln != nil
	s.mu.Unlock()
	switch {
	case on && running && !listening:
		return s.listenLocked()
	case !on && listening:
		s.unlistenLocked()
	}
	return nil
}

// listenLocked starts the listener and its accept loop. s.life is held.
func (s *server) listenLocked() error {
	ln, err := listen(s.socket)
	if err != nil {
		return fmt.Errorf("herdrtest: listen: %w", err)
	}
	quit := make(chan struct{})
	s.mu.Lock()
	s.ln, s.quit = ln, quit
	s.mu.Unlock()
	s.wg.Add(1)
	go s.accept(ln, quit)
	return nil
}

// unlistenLocked closes the listener and every open connection, and waits
// for their goroutines. s.life is held.
func (s *server) unlistenLocked() {
	s.mu.Lock()
	ln, quit := s.ln, s.quit
	s.ln, s.quit = nil, nil
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	if ln == nil {
		return
	}
	close(quit)
	_ = ln.Close()
	for _, c := range conns {
		_ = c.Close()
	}
	s.wg.Wait()
	removeSocket(s.socket)
}

// workers is how many connection goroutines each listener keeps, started
// with it.
const workers = 4

// accept hands each connection to an idle worker (a connection goroutine
// done with its last one). The workers start with the listener and end
// with it: a worker keeps the stack its last request grew, where a fresh
// goroutine would grow it again for each request. A connection that finds
// every worker busy gets a goroutine of its own, which ends with it, so
// that the goroutines a client leaves behind it are none but those that
// were there before it connected (goleak checks in the tests of the
// clients).
func (s *server) accept(ln net.Listener, quit chan struct{}) {
	defer s.wg.Done()
	idle := make(chan conn)
	s.wg.Add(workers)
	for range workers {
		go s.work(idle, quit)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			select {
			case <-quit:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		s.mu.Lock()
		if s.quit != quit {
			s.mu.Unlock()
			_ = c.Close()
			continue
		}
		s.conns[c] = struct{}{}
		job := conn{c, limits{s.lineTimeout, s.writeTimeout, s.onDeadline}}
		select {
		case idle <- job:
			s.mu.Unlock()
		default:
			s.wg.Add(1)
			s.mu.Unlock()
			go func() {
				defer s.wg.Done()
				var r requestReader
				r.br = bufio.NewReaderSize(&r.lr, 4096)
				s.serve(job.c, quit, job.lim, &r)
			}()
		}
	}
}

// conn is an accepted connection and its limits.
type conn struct {
	c   net.Conn
	lim limits
}

// work serves the connections accept hands it, until the listener stops.
func (s *server) work(idle <-chan conn, quit chan struct{}) {
	defer s.wg.Done()
	var r requestReader
	r.br = bufio.NewReaderSize(&r.lr, 4096)
	for {
		select {
		case job := <-idle:
			s.serve(job.c, quit, job.lim, &r)
		case <-quit:
			return
		}
	}
}

// requestReader is a worker's reader of request lines, kept from one
// connection to the next: wire.ReadRequestLine reads through br itself
// rather than a buffer of its own for each request.
type requestReader struct {
	lr lineReader
	br *bufio.Reader // reads lr; as large as wire.ReadRequestLine's own
}

// limits are a connection's timeouts, as they were when it was accepted.
type limits struct {
	line, write time.Duration
	onDeadline  func(read bool) // server.onDeadline
}

// serve is one connection: one request line, at most one response
// (CONTRACT §2.1).
func (s *server) serve(c net.Conn, quit chan struct{}, lim limits, rr *requestReader) {
	defer func() {
		_ = c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	pid := peerPID(c)
	s.mu.Lock()
	unreachable := s.fault.SocketUnreachable
	s.mu.Unlock()
	if unreachable && !s.isCLI(pid) {
		return // closed unread: no answer
	}
	raw := rawConn(c)
	rr.lr = lineReader{c: c, raw: raw, deadline: time.Now().Add(lim.line), onDeadline: lim.onDeadline}
	rr.br.Reset(&rr.lr)
	line, err := wire.ReadRequestLine(rr.br)
	if err != nil {
		return // too slow, too long, no newline, not UTF-8: no response
	}
	start := time.Now()
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return // an empty line gets no response
	}
	if rr.lr.armed {
		_ = c.SetReadDeadline(time.Time{})
	}
	cli := s.isCLI(pid)
	w := &timedWriter{c: c, raw: raw, d: lim.write, onDeadline: lim.onDeadline}
	s.mu.Lock()
	f := s.fault
	s.mu.Unlock()
	// The fake CLI applies its process faults itself before it connects;
	// a socket client gets the server's equivalents.
	if !cli {
		if f.Hang {
			s.hang(c, line, pid, start)
			return
		}
		if f.SleepMs > 0 {
			t := time.NewTimer(time.Duration(f.SleepMs) * time.Millisecond)
			select {
			case <-t.C:
			case <-quit:
				t.Stop()
				return
			}
		}
		if f.Garbage {
			s.handle(line, pid, cli, start, true)
			_, _ = w.Write(garbageLine)
			return
		}
	}
	tn := s.takeTurn(line)
	if tn != nil {
		select {
		case <-tn.ready:
		case <-quit: // the server stopped: the request is never applied
			s.leaveTurn(tn)
			return
		}
	}
	r := s.handle(line, pid, cli, start, false)
	if tn != nil {
		s.leaveTurn(tn)
	}
	if !cli && f.SpewBytes > 0 {
		spew(w, f.SpewBytes)
	}
	if _, err := w.Write(r.resp.Line()); err != nil {
		s.mu.Lock()
		r.rec.exit = -1 // the client went away before the answer
		s.notifyLocked()
		s.mu.Unlock()
	}
}

// turn is an agent request's place in the hold queue.
type turn struct {
	ready  chan struct{} // closed when the request may be applied
	opened bool          // ready is closed
}

// agentMethod reports whether line is a request that changes a pane's
// agent state: the ones a hold holds.
func agentMethod(line []byte) bool {
	req, err := wire.DecodeRequest(line)
	if err != nil {
		return false
	}
	switch req.Method {
	case wire.MethodReportAgent, wire.MethodReleaseAgent, wire.MethodReportAgentSession, wire.MethodClearAgentAuthority:
		return true
	}
	return false
}

// takeTurn returns the request's turn when it must wait: a hold is in force,
// or held requests are still ahead of it. It returns nil for a request that
// goes straight through (the usual case, and every request but the agent
// ones).
func (s *server) takeTurn(line []byte) *turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold == nil && len(s.queue) == 0 || !agentMethod(line) {
		return nil
	}
	tn := &turn{ready: make(chan struct{})}
	s.queue = append(s.queue, tn)
	if s.hold != nil {
		s.hold.held++
	}
	s.notifyLocked()
	return tn
}

// leaveTurn takes tn out of the queue once its request was handled (or
// dropped) and lets the next one in unless a hold is in force.
func (s *server) leaveTurn(tn *turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.queue, tn); i >= 0 {
		s.queue = slices.Delete(s.queue, i, i+1)
	}
	s.openHeadLocked()
}

// openHeadLocked lets the first queued request in when no hold is in force.
// s.mu is held.
func (s *server) openHeadLocked() {
	if s.hold != nil || len(s.queue) == 0 || s.queue[0].opened {
		return
	}
	s.queue[0].opened = true
	close(s.queue[0].ready)
}

// responseWriteTimeout is how long one write to a connection may take
// before Herdr gives up on the client (STREAM_WRITE_TIMEOUT, a send
// timeout set on every connection: src/api/server.rs:31,159-161).
const responseWriteTimeout = 5 * time.Second

// lineReader reads a request line from c within the line timeout, which
// ends at deadline. Its first read takes what has already arrived without
// a deadline (readNow): a deadline is a runtime timer, and arming one can
// wake another thread, the dearest step of a request on a small machine.
// Only when it must wait does it set the deadline, the same instant it
// would have set at the start, so the line timeout is unchanged.
type lineReader struct {
	c        net.Conn
	raw      syscall.RawConn // nil: every read waits with the deadline
	deadline time.Time
	tried    bool // the first read was made without a deadline
	armed    bool // the deadline is set on c
	// onDeadline is server.onDeadline.
	onDeadline func(read bool)
}

func (r *lineReader) Read(p []byte) (int, error) {
	if !r.tried {
		r.tried = true
		if n, done, err := readNow(r.raw, p); done {
			return n, err
		}
	}
	if !r.armed {
		r.armed = true
		if r.onDeadline != nil {
			r.onDeadline(true)
		}
		_ = r.c.SetReadDeadline(r.deadline)
	}
	return r.c.Read(p)
}

// timedWriter writes to c with a fresh deadline of d for each write, as a
// socket send timeout applies to each send. Until a write must wait, what
// the socket takes at once is written without one (writeNow): a send that
// does not block cannot time out, and a deadline is a runtime timer (see
// lineReader). From the first write that waits on, every write sets its
// deadline first, so that the deadline of one never cuts the next short.
type timedWriter struct {
	c          net.Conn
	raw        syscall.RawConn // nil: every write has its deadline
	d          time.Duration
	onDeadline func(read bool) // server.onDeadline
	armed      bool            // a write deadline was set on c
}

func (w *timedWriter) Write(p []byte) (int, error) {
	done := 0
	if !w.armed {
		n, ok, err := writeNow(w.raw, p)
		if ok {
			return n, err
		}
		done, w.armed = n, true
	}
	if w.onDeadline != nil {
		w.onDeadline(false)
	}
	_ = w.c.SetWriteDeadline(time.Now().Add(w.d))
	m, err := w.c.Write(p[done:])
	return done + m, err
}

// garbageLine is what a socket client gets under the Garbage fault:
// neither JSON nor UTF-8.
var garbageLine = []byte("herdr: \xff\xfe{{ not json ]] \x1b[31mpanic\x1b[0m\n")

// hang records a request that is never answered (the Hang fault on the
// socket) and holds the connection until the client or the server closes
// it.
func (s *server) hang(c net.Conn, line []byte, pid int, start time.Time) {
	s.mu.Lock()
	s.arrival++
	rec := &record{arrival: s.arrival, line: line, pid: pid, start: start, exit: -1, hung: true}
	if req, err := wire.DecodeRequest(line); err == nil {
		rec.id, rec.method, rec.params, rec.pane = req.ID, req.Method, req.Params, paneOf(req)
	}
	s.records = append(s.records, rec)
	s.notifyLocked()
	s.mu.Unlock()
	_, _ = io.Copy(io.Discard, c)
}

type received struct {
	rec  *record
	resp wire.Response
}

// handle takes one request line under s.mu: it assigns the arrival number,
// answers the request and records it, outcome included, before the answer
// is written, so that a client that has its answer finds the call logged.
// With recordOnly (the Garbage fault) the request is recorded as answered
// with garbage and not handled.
func (s *server) handle(line []byte, pid int, cli bool, start time.Time, recordOnly bool) received {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrival++
	rec := &record{arrival: s.arrival, line: line, pid: pid, cli: cli, start: start, exit: -1}
	s.records = append(s.records, rec)
	defer s.notifyLocked()
	defer func() { rec.end = time.Now() }()
	req, err := wire.DecodeRequest(line)
	if err != nil {
		// Any JSON or serde failure: invalid_request with an empty id
		// (CONTRACT §2.4). Herdr's message is serde's; this one is Go's.
		resp := wire.NewError("", wire.CodeInvalidRequest, "invalid request: "+err.Error())
		rec.code, rec.exit = resp.Error.Code, 1
		return received{rec, resp}
	}
	if recordOnly {
		rec.id, rec.method, rec.params, rec.pane = req.ID, req.Method, req.Params, paneOf(req)
		rec.exit = 1
		return received{rec: rec}
	}
	ap := decodeAgentParams(req)
	rec.id, rec.method, rec.params, rec.pane = req.ID, req.Method, req.Params, paneOfAgent(req, ap.ar)
	resp := s.dispatchLocked(req, rec, ap)
	rec.exit = 0
	if resp.Error != nil {
		rec.code, rec.exit = resp.Error.Code, 1
	}
	if s.st != nil {
		if p := s.st.pane(rec.pane); p != nil {
			rec.status, rec.agent = p.status(), p.Label
		}
	}
	return received{rec, resp}
}

// paneOf returns the pane a request names, or "".
func paneOf(req wire.Request) string {
	var t struct {
		PaneID *string `json:"pane_id"`
		Target *string `json:"target"`
	}
	if json.Unmarshal(req.Params, &t) != nil {
		return ""
	}
	switch {
	case t.PaneID != nil:
		return *t.PaneID
	case t.Target != nil:
		return *t.Target
	}
	return ""
}

// unknownMethod is serde's failure for a method it does not know. The
// emulator answers it for every method it does not emulate, too.
func unknownMethod(m wire.Method) wire.Response {
	return wire.NewError("", wire.CodeInvalidRequest, fmt.Sprintf("invalid request: unknown variant %q", string(m)))
}

func invalidParams(err error) wire.Response {
	return wire.NewError("", wire.CodeInvalidRequest, "invalid request: "+err.Error())
}

// paneOfAgent is paneOf(req) for a request whose agent params decoded as
// ar (nil for another method or params that did not decode), without a
// second decoding where the answer is sure to be ar.pane: the params have
// no escape, and "pane_id" comes once in them (in any case: paneOf's
// decoder matches keys regardless of case) and "target" never. The agent
// params then have their one pane_id key, with a string value, and
// paneOf finds that same key and nothing else.
func paneOfAgent(req wire.Request, ar *agentRequest) string {
	if ar != nil && onePaneID(req.Params) {
		return ar.pane
	}
	return paneOf(req)
}

// onePaneID reports whether params have no escape, "pane_id" once (in any
// case) and "target" never (see paneOfAgent).
func onePaneID(params []byte) bool {
	return bytes.IndexByte(params, '\\') < 0 && quotedCount(params, "pane_id") == 1 && quotedCount(params, "target") == 0
}

// quotedCount counts the places where word, quoted, is in data, in any
// case.
func quotedCount(data []byte, word string) int {
	n := 0
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return n
		}
		i += j + 1
		if end := i + len(word); end < len(data) && data[end] == '"' && bytes.EqualFold(data[i:end], []byte(word)) {
			n++
		}
	}
}

// agentParams are an agent method's params, decoded once for the record
// and for dispatchLocked.
type agentParams struct {
	ar  *agentRequest // nil for another method, or when err is set
	err error
}

// decodeAgentParams decodes req's params when req is one of the three
// agent methods.
func decodeAgentParams(req wire.Request) agentParams {
	switch req.Method {
	case wire.MethodReportAgent, wire.MethodReleaseAgent, wire.MethodReportAgentSession:
		ar, err := decodeAgentRequest(req)
		if err != nil {
			return agentParams{err: err}
		}
		return agentParams{ar: ar}
	}
	return agentParams{}
}

// dispatchLocked answers a decoded request, the params of an agent method
// decoded as ap. s.mu is held.
func (s *server) dispatchLocked(req wire.Request, rec *record, ap agentParams) wire.Response {
	st := s.st
	if s.fault.FailAll {
		return wire.NewError(req.ID, wire.CodeServerUnavailable, "server is shutting down")
	}
	if st == nil && req.Method != wire.MethodPing {
		// Accepted just before a stop.
		return wire.NewError(req.ID, wire.CodeServerUnavailable, "server is shutting down")
	}
	switch req.Method {
	case wire.MethodPing:
		var p struct{}
		if err := req.Decode(&p); err != nil {
			return invalidParams(err)
		}
		protocol := s.v.protocol
		if s.fault.ProtocolMismatch != 0 {
			protocol = s.fault.ProtocolMismatch
		}
		resp, _ := wire.NewSuccess(req.ID, wire.Pong{Type: wire.ResultPong, Version: s.v.name, Protocol: protocol, Capabilities: capabilities})
		return resp
	case wire.MethodReportAgent, wire.MethodReleaseAgent, wire.MethodReportAgentSession:
		ar, err := ap.ar, ap.err
		if err != nil {
			return invalidParams(err)
		}
		if s.failUsed < s.fault.FailFirst {
			s.failUsed++
			return wire.NewError(req.ID, wire.CodeServerUnavailable, "server is shutting down")
		}
		applied, e := st.apply(ar, s.v, time.Now())
		if e != nil {
			return wire.Response{ID: req.ID, Error: e}
		}
		rec.applied = applied
		if p := st.pane(ar.pane); p != nil && p.Resume != nil {
			s.resume[p.ID] = p.Resume
		}
		return wire.OK(req.ID)
	case wire.MethodClearAgentAuthority:
		var c wire.ClearAgentAuthorityParams
		if err := req.Decode(&c); err != nil {
			return invalidParams(err)
		}
		p := st.pane(c.PaneID)
		if p == nil {
			// Inferred: the same lookup, and answer, as release_agent's.
			return wire.Response{ID: req.ID, Error: paneNotFound(c.PaneID)}
		}
		rec.applied = st.clearAuthority(p, c.Source, c.Seq)
		return wire.OK(req.ID)
	case wire.MethodPaneGet:
		var t wire.PaneTarget
		if err := req.Decode(&t); err != nil {
			return invalidParams(err)
		}
		return paneResult(req.ID, st, t.PaneID)
	case wire.MethodPaneCurrent:
		var t wire.PaneCurrentParams
		if err := req.Decode(&t); err != nil {
			return invalidParams(err)
		}
		// Herdr answers pane_current for the caller's pane, or without
		// one for the focused pane, and "pane not found" for neither
		// (src/app/api/panes.rs:142-155). Inferred: the focused pane is
		// the first one in view.
		var p *paneState
		if t.CallerPaneID != nil {
			p = st.pane(*t.CallerPaneID)
		} else if i := slices.IndexFunc(st.Panes, func(p *paneState) bool { return p.InView }); i >= 0 {
			p = st.Panes[i]
		}
		if p == nil {
			return wire.NewError(req.ID, wire.CodePaneNotFound, "pane not found")
		}
		resp, _ := wire.NewSuccess(req.ID, struct {
			Type string   `json:"type"`
			Pane paneInfo `json:"pane"`
		}{"pane_current", p.paneInfo()})
		return resp
	case wire.MethodPaneList:
		var t wire.PaneListParams
		if err := req.Decode(&t); err != nil {
			return invalidParams(err)
		}
		panes := make([]paneInfo, 0, len(st.Panes))
		for _, p := range st.Panes {
			if t.WorkspaceID == nil || p.WorkspaceID == *t.WorkspaceID {
				panes = append(panes, p.paneInfo())
			}
		}
		if t.WorkspaceID != nil && len(panes) == 0 {
			// A workspace with no pane does not exist: every workspace
			// has one (src/app/creation.rs:277-293).
			return wire.NewError(req.ID, wire.CodeWorkspaceNotFound, "workspace "+*t.WorkspaceID+" not found")
		}
		resp, _ := wire.NewSuccess(req.ID, struct {
			Type  string     `json:"type"`
			Panes []paneInfo `json:"panes"`
		}{"pane_list", panes})
		return resp
	case wire.MethodAgentGet, wire.MethodAgentFocus:
		var t wire.AgentTarget
		if err := req.Decode(&t); err != nil {
			return invalidParams(err)
		}
		p := st.pane(t.Target)
		if p == nil || p.Label == "" {
			return wire.NewError(req.ID, wire.CodeAgentNotFound, "agent target "+t.Target+" not found")
		}
		if req.Method == wire.MethodAgentFocus {
			// Marks the pane seen and answers its info, as Herdr's
			// handle_agent_focus does (src/app/api/agents.rs:35-42); the
			// emulator does not move the view, so "focused" keeps its value.
			p.Seen = true
		}
		resp, _ := wire.NewSuccess(req.ID, struct {
			Type  string    `json:"type"`
			Agent AgentInfo `json:"agent"`
		}{"agent_info", p.agentInfo()})
		return resp
	case wire.MethodAgentList:
		var t struct{}
		if err := req.Decode(&t); err != nil {
			return invalidParams(err)
		}
		agents := []AgentInfo{}
		for _, p := range st.Panes {
			if p.Label != "" {
				agents = append(agents, p.agentInfo())
			}
		}
		resp, _ := wire.NewSuccess(req.ID, struct {
			Type   string      `json:"type"`
			Agents []AgentInfo `json:"agents"`
		}{"agent_list", agents})
		return resp
	}
	return unknownMethod(req.Method)
}

func paneResult(id string, st *serverState, pane string) wire.Response {
	p := st.pane(pane)
	if p == nil {
		return wire.Response{ID: id, Error: paneNotFound(pane)}
	}
	resp, _ := wire.NewSuccess(id, struct {
		Type string   `json:"type"`
		Pane paneInfo `json:"pane"`
	}{"pane_info", p.paneInfo()})
	return resp
}

// decodeAgentRequest decodes the params of the three agent methods.
func decodeAgentRequest(req wire.Request) (*agentRequest, error) {
	ar := &agentRequest{method: req.Method}
	switch req.Method {
	case wire.MethodReportAgent:
		var p wire.ReportAgentParams
		if err := req.Decode(&p); err != nil {
			return nil, err
		}
		ar.pane, ar.source, ar.agent, ar.state, ar.message, ar.seq = p.PaneID, p.Source, p.Agent, p.State, p.Message, p.Seq
		ar.sessionID, ar.sessionPath, ar.resume = p.AgentSessionID, p.AgentSessionPath, p.ResumeArgv
	case wire.MethodReleaseAgent:
		var p wire.ReleaseAgentParams
		if err := req.Decode(&p); err != nil {
			return nil, err
		}
		ar.pane, ar.source, ar.agent, ar.seq = p.PaneID, p.Source, p.Agent, p.Seq
	case wire.MethodReportAgentSession:
		var p wire.ReportAgentSessionParams
		if err := req.Decode(&p); err != nil {
			return nil, err
		}
		ar.pane, ar.source, ar.agent, ar.seq = p.PaneID, p.Source, p.Agent, p.Seq
		ar.sessionID, ar.sessionPath, ar.startSource, ar.resume = p.AgentSessionID, p.AgentSessionPath, p.SessionStartSource, p.ResumeArgv
	}
	return ar, nil
}

// isCLI reports whether pid is one of this emulator's fake CLI processes,
// still running: its start record is in the invocation log (it writes it
// before it connects) and its end record is not.
func (s *server) isCLI(pid int) bool {
	if pid <= 0 || pid == s.selfPID {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if running, ok := s.cliPIDs[pid]; ok && running {
		return true
	}
	s.readLogLocked()
	return s.cliPIDs[pid]
}

// readLogLocked reads the invocation log from where it last stopped and
// notes the fake CLI pids. s.mu is held. A log no longer than what was read
// holds no new record: one stat then stands for the lock, the open and the
// read (a host's connection, the usual case, costs the server no more).
// The log only grows: the fake CLI appends to it and nothing truncates it.
func (s *server) readLogLocked() {
	if fi, err := os.Stat(filepath.Join(s.dir, logName)); err != nil || fi.Size() <= s.logOff {
		return
	}
	unlock, err := filelock.Lock(filepath.Join(s.dir, lockName))
	if err != nil {
		return
	}
	defer unlock()
	f, err := os.Open(filepath.Join(s.dir, logName))
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Seek(s.logOff, io.SeekStart); err != nil {
		return
	}
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return // a partial line is read again next time
		}
		s.logOff += int64(len(line))
		var r struct {
			Phase string `json:"phase"`
			PID   int    `json:"pid"`
		}
		if json.Unmarshal(line, &r) == nil && r.PID > 0 {
			s.cliPIDs[r.PID] = r.Phase == phaseStart
		}
	}
}

// snapshot returns the records, copied, under s.mu.
func (s *server) snapshot() []record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]record, len(s.records))
	for i, r := range s.records {
		out[i] = *r
	}
	return out
}
