package herdr

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/adapters/herdr/internal/wire"
	"github.com/panestate/panestate/session"
)

// sockServer is a minimal Herdr socket for transport tests: it answers
// pings with its version and protocol, records every request line, and
// answers the others with answer (ok by default).
type sockServer struct {
	path     string
	version  string
	protocol int
	ln       net.Listener
	wg       sync.WaitGroup

	mu     sync.Mutex
	lines  []string // every request line, pings included
	answer func(req wire.Request) []byte
}

func startSockServer(t *testing.T, version string, protocol int) *sockServer {
	t.Helper()
	dir, err := os.MkdirTemp("", "hs") // short: a socket path has a small limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &sockServer{path: filepath.Join(dir, "s"), version: version, protocol: protocol}
	s.ln, err = net.Listen("unix", s.path)
	if err != nil {
		t.Fatal(err)
	}
	s.wg.Go(s.serve)
	t.Cleanup(s.stop)
	return s
}

func (s *sockServer) stop() {
	s.ln.Close()
	s.wg.Wait()
}

func (s *sockServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Go(func() { s.handle(c) })
	}
}

func (s *sockServer) handle(c net.Conn) {
	defer c.Close()
	line, err := wire.ReadRequestLine(c)
	if err != nil {
		return
	}
	req, err := wire.DecodeRequest(line)
	if err != nil {
		c.Write(wire.NewError("", wire.CodeInvalidRequest, "bad").Line())
		return
	}
	s.mu.Lock()
	s.lines = append(s.lines, string(line))
	answer := s.answer
	s.mu.Unlock()
	if req.Method == wire.MethodPing {
		resp, _ := wire.NewSuccess(req.ID, wire.Pong{Type: wire.ResultPong, Version: s.version, Protocol: s.protocol})
		c.Write(resp.Line())
		return
	}
	if answer != nil {
		if b := answer(req); b != nil {
			c.Write(b)
		}
		return
	}
	c.Write(wire.OK(req.ID).Line())
}

func (s *sockServer) setAnswer(f func(wire.Request) []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = f
}

// methods returns the method of every request line received.
func (s *sockServer) methods(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, r := range s.requests(t) {
		out = append(out, string(r.Method))
	}
	return out
}

func (s *sockServer) requests(t *testing.T) []wire.Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []wire.Request
	for _, l := range s.lines {
		r, err := wire.DecodeRequest([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// reportParams returns the params of every pane.report_agent received.
func (s *sockServer) reports(t *testing.T) []wire.ReportAgentParams {
	t.Helper()
	var out []wire.ReportAgentParams
	for _, r := range s.requests(t) {
		if r.Method == wire.MethodReportAgent {
			var p wire.ReportAgentParams
			if err := r.Decode(&p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

// sockFixture is a fixture whose HERDR_SOCKET_PATH is s (or a path where
// nothing listens, for a nil s). The fake CLI still logs its calls, which
// is how a test sees that no process was spawned.
func sockFixture(t *testing.T, s *sockServer, settings string) *fixture {
	t.Helper()
	f := newFixture(t, herdrtest.Options{})
	path := filepath.Join(t.TempDir(), "nothing.sock")
	if s != nil {
		path = s.path
	}
	f.env = f.env.With(EnvSocket, path)
	f.set = settings
	return f
}

// TestTransportSelection runs one report per transport setting against
// the emulated Herdr and checks, from its log, which transport carried it:
// socket never spawns a process, cli never dials.
func TestTransportSelection(t *testing.T) {
	tests := []struct {
		name       string
		transport  string
		version    string
		fault      herdrtest.Fault
		wantSocket int    // socket requests, pings included
		wantCLI    int    // CLI processes
		wantUsed   string // Details' transport_used
		wantCode   string // Report's error code, "" for success
		wantServer string // Details' server_version/server_protocol
	}{
		{name: "auto, 0.8.2", transport: "auto", version: herdrtest.Version082, wantSocket: 2, wantUsed: "socket", wantServer: "0.8.2/20"},
		{name: "auto, 0.9.3", transport: "auto", version: herdrtest.Version093, wantSocket: 2, wantUsed: "socket", wantServer: "0.9.3/22"},
		{name: "auto, unknown protocol falls back to the CLI", transport: "auto", fault: herdrtest.Fault{ProtocolMismatch: 23},
			wantSocket: 1, wantCLI: 1, wantUsed: "cli", wantCode: "protocol_mismatch", wantServer: "0.8.2/23"},
		{name: "auto, nothing listening falls back to the CLI", transport: "auto", fault: herdrtest.Fault{ServerNotRunning: true},
			wantCLI: 1, wantUsed: "cli", wantCode: "server_not_running", wantServer: "(unknown)/(unknown)"},
		{name: "socket, 0.8.2", transport: "socket", wantSocket: 2, wantUsed: "socket", wantServer: "0.8.2/20"},
		{name: "socket, unknown protocol sends nothing", transport: "socket", fault: herdrtest.Fault{ProtocolMismatch: 23},
			wantSocket: 1, wantUsed: "socket", wantCode: "protocol_mismatch", wantServer: "0.8.2/23"},
		{name: "socket, nothing listening spawns nothing", transport: "socket", fault: herdrtest.Fault{ServerNotRunning: true},
			wantUsed: "socket", wantCode: "server_not_running", wantServer: "(unknown)/(unknown)"},
		{name: "cli never dials", transport: "cli", wantCLI: 1, wantUsed: "cli", wantServer: "(unknown)/(unknown)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureOn(t, tt.transport, herdrtest.Options{Version: tt.version})
			f.setFault(t, tt.fault)
			a := f.open(t)
			err := a.Report(t.Context(), working)
			var ce *CallError
			switch {
			case tt.wantCode == "" && err != nil:
				t.Fatalf("Report = %v", err)
			case tt.wantCode != "" && (!errors.As(err, &ce) || ce.Code != tt.wantCode):
				t.Fatalf("Report = %v, want code %s", err, tt.wantCode)
			}
			got := map[herdrtest.Transport]int{}
			for _, c := range f.allCalls(t) {
				got[c.Transport]++
			}
			if got[herdrtest.TransportSocket] != tt.wantSocket || got[herdrtest.TransportCLI] != tt.wantCLI {
				t.Errorf("socket requests %d, CLI processes %d; want %d, %d", got[herdrtest.TransportSocket], got[herdrtest.TransportCLI], tt.wantSocket, tt.wantCLI)
			}
			ex := a.Details()
			if ex["transport"] != tt.transport || ex["transport_used"] != tt.wantUsed {
				t.Errorf("Details transport %q, transport_used %q; want %q, %q", ex["transport"], ex["transport_used"], tt.transport, tt.wantUsed)
			}
			if got := ex["server_version"] + "/" + ex["server_protocol"]; got != tt.wantServer {
				t.Errorf("Details server %q, want %q", got, tt.wantServer)
			}
		})
	}
}

func TestSocketPingOncePerClaim(t *testing.T) {
	s := startSockServer(t, "0.8.2", 20)
	f := sockFixture(t, s, "")
	a := f.open(t)
	ctx := t.Context()
	for _, r := range []adapter.Report{working, blocked, idle} {
		if err := a.Report(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Report(ctx, working); err != nil { // a new claim
		t.Fatal(err)
	}
	// A connection-level failure: the next call pings again.
	s.setAnswer(func(wire.Request) []byte { return nil }) // close without answering
	if err := a.Report(ctx, idle); err == nil {
		t.Fatal("Report with no response = nil")
	}
	s.setAnswer(nil)
	if err := a.Report(ctx, idle); err != nil {
		t.Fatal(err)
	}
	want := []string{"ping", "pane.report_agent", "pane.report_agent", "pane.report_agent", "pane.release_agent",
		"ping", "pane.report_agent", "pane.report_agent", "ping", "pane.report_agent"}
	if diff := cmp.Diff(s.methods(t), want); diff != "" {
		t.Errorf("requests (-got +want):\n%s", diff)
	}
	if n := len(f.calls(t)); n != 0 {
		t.Errorf("%d CLI processes spawned", n)
	}
}

// TestSocketRequestLines pins what goes on the wire: Herdr's key order,
// absent fields omitted, the identity until delivered, a fresh seq for the
// release, and the same seq rules as the CLI.
func TestSocketRequestLines(t *testing.T) {
	s := startSockServer(t, "0.8.2", 20)
	f := sockFixture(t, s, `{"transport":"socket"}`)
	f.host.Identity = session.Identity{ID: "s-1", Path: "/home/u/s-1.jsonl"}
	a := f.open(t)
	ctx := t.Context()
	for _, r := range []adapter.Report{blocked, idle} {
		if err := a.Report(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	lines := slices.Clone(s.lines)
	s.mu.Unlock()
	var seqs []uint64
	for i, l := range lines {
		var v struct {
			Params struct {
				Seq uint64 `json:"seq"`
			} `json:"params"`
		}
		json.Unmarshal([]byte(l), &v)
		if i > 0 {
			seqs = append(seqs, v.Params.Seq)
			lines[i] = strings.Replace(l, `"seq":`+jsonNumber(v.Params.Seq), `"seq":N`, 1)
		}
	}
	want := []string{
		`{"id":"api-client:status","method":"ping","params":{}}`,
		`{"id":"panestate:request","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"custom:panetest","agent":"panetest","state":"blocked","message":"Waiting for approval","seq":N,"agent_session_id":"s-1","agent_session_path":"/home/u/s-1.jsonl"}}`,
		`{"id":"panestate:request","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"custom:panetest","agent":"panetest","state":"idle","seq":N}}`,
		`{"id":"panestate:request","method":"pane.release_agent","params":{"pane_id":"w1:p1","source":"custom:panetest","agent":"panetest","seq":N}}`,
	}
	if diff := cmp.Diff(lines, want); diff != "" {
		t.Errorf("request lines (-got +want):\n%s", diff)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			t.Errorf("seqs %v do not rise", seqs)
		}
	}
}

func jsonNumber(n uint64) string { b, _ := json.Marshal(n); return string(b) }

func TestSocketFaults(t *testing.T) {
	big := strings.Repeat("x", 70<<10)
	tests := []struct {
		name   string
		answer func(wire.Request) []byte
		kind   adapter.Kind
		code   string
		detail string
	}{
		{name: "pane not found", answer: func(r wire.Request) []byte {
			return wire.NewError(r.ID, wire.CodePaneNotFound, "pane w1:p1 not found").Line()
		}, kind: adapter.KindProtocolRejected, code: "pane_not_found", detail: "socket: pane_not_found"},
		{name: "server unavailable", answer: func(r wire.Request) []byte {
			return wire.NewError(r.ID, wire.CodeServerUnavailable, "shutting down").Line()
		}, kind: adapter.KindProtocolRejected, code: "server_unavailable", detail: "socket: server_unavailable"},
		{name: "unknown error code", answer: func(r wire.Request) []byte {
			return wire.NewError(r.ID, "weird_code", "secret text").Line()
		}, kind: adapter.KindProtocolRejected, detail: "socket: unrecognised error response"},
		{name: "closed without a response", answer: func(wire.Request) []byte { return nil },
			kind: adapter.KindProtocolRejected, detail: "socket: closed without a response"},
		{name: "garbage", answer: func(wire.Request) []byte { return []byte("secret garbage\n") },
			kind: adapter.KindProtocolRejected, detail: "socket: unrecognised response"},
		{name: "response over 64 KiB", answer: func(wire.Request) []byte { return []byte(`{"id":"` + big + `"}` + "\n") },
			kind: adapter.KindProtocolRejected, detail: "socket: response over 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startSockServer(t, "0.8.2", 20)
			f := sockFixture(t, s, `{"transport":"socket"}`)
			a := f.open(t)
			s.setAnswer(tt.answer)
			err := a.Report(t.Context(), working)
			var ce *CallError
			if !errors.As(err, &ce) || ce.Kind != tt.kind || ce.Code != tt.code {
				t.Fatalf("Report = %v, want %s code %q", err, tt.kind, tt.code)
			}
			d := f.diags.all()
			if len(d) != 1 || d[0].Kind != tt.kind || !strings.Contains(d[0].Detail, tt.detail) {
				t.Fatalf("diagnostics %v, want one %s saying %q", d, tt.kind, tt.detail)
			}
			for _, leak := range []string{"secret", "xxxx", "not found"} {
				if strings.Contains(d[0].Detail, leak) || strings.Contains(err.Error(), leak) {
					t.Errorf("the response leaked into %q / %q", d[0].Detail, err)
				}
			}
		})
	}
}

// TestSocketTimeout: a report to a server that never answers ends at the
// adapter's timeout as a timeout CallError, with one diagnostic that says
// so.
func TestSocketTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	s := startSockServer(t, "0.8.2", 20)
	f := sockFixture(t, s, `{"transport":"socket","timeout":"`+timeout.String()+`"}`)
	a := f.open(t)
	// The report before the one under test pings the server and is
	// delivered: setup, which a loaded machine must not time out (a race
	// build of it, with two busy loops beside it, once took over 200 ms for
	// its ping and report): it gets a minute. Only the report under test
	// has the timeout.
	setCallBudget(t, time.Minute)
	if err := a.Report(t.Context(), working); err != nil { // ping and report
		t.Fatalf("the setup report, held past the timeout = %v, want it delivered", err)
	}
	testHooks.callBudget = 0
	block := make(chan struct{})
	defer close(block)
	s.setAnswer(func(wire.Request) []byte { <-block; return nil })
	var ce *CallError
	if err := a.Report(t.Context(), idle); !errors.As(err, &ce) || ce.Kind != adapter.KindTimeout {
		t.Fatalf("Report to a server that never answers = %v, want a timeout", err)
	}
	if d := f.diags.all(); len(d) != 1 || d[0].Detail != "report-agent: socket: no answer before the deadline" {
		t.Errorf("diagnostics %v", d)
	}
}

// resumeOf returns the resume argv of every report the server received.
func resumeOf(t *testing.T, s *sockServer) [][]string {
	t.Helper()
	var out [][]string
	for _, p := range s.reports(t) {
		out = append(out, p.ResumeArgv)
	}
	return out
}

var resumeCmd = []string{"mychat", "--resume", "abc"}

// withResume returns id with the resume command words; the words are the
// test's own and never hold a NUL byte.
func withResume(id session.Identity, words ...string) session.Identity {
	id, err := id.WithResume(words...)
	if err != nil {
		panic(err)
	}
	return id
}

func TestResumeOnlyToNewServersOnceHeld(t *testing.T) {
	argv := resumeCmd
	tests := []struct {
		version string
		want    [][]string // resume_argv of each report received
	}{
		{version: "0.9.3", want: [][]string{nil, argv, nil}},
		{version: "0.9.2", want: [][]string{nil, argv, nil}},
		{version: "0.10.0", want: [][]string{nil, argv, nil}},
		{version: "0.9.2-preview.4", want: [][]string{nil, nil}},
		{version: "0.9.1", want: [][]string{nil, nil}},
		{version: "0.8.2", want: [][]string{nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			protocol := 22
			if strings.HasPrefix(tt.version, "0.8") {
				protocol = 20
			}
			s := startSockServer(t, tt.version, protocol)
			f := sockFixture(t, s, "")
			f.host.Identity = withResume(session.Identity{ID: "abc"}, resumeCmd...)
			a := f.open(t)
			for _, r := range []adapter.Report{working, idle} {
				if err := a.Report(t.Context(), r); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(resumeOf(t, s), tt.want); diff != "" {
				t.Errorf("resume_argv per report (-got +want):\n%s", diff)
			}
			// The follow-up repeats the first report's state.
			if rs := s.reports(t); len(rs) == 3 && rs[1].State != rs[0].State {
				t.Errorf("the report with the resume argv has state %s, want %s", rs[1].State, rs[0].State)
			}
			if len(f.diags.all()) != 0 {
				t.Errorf("diagnostics %v", f.diags.all())
			}
		})
	}
}

func TestResumeInvalidDropped(t *testing.T) {
	long := make([]string, 65)
	for i := range long {
		long[i] = "x"
	}
	tests := []struct {
		name  string
		argv  []string
		cause string
	}{
		{name: "path", argv: []string{"/usr/bin/mychat", "--resume"}, cause: "plain command name"},
		{name: "relative path", argv: []string{"bin/mychat"}, cause: "plain command name"},
		{name: "leading dash", argv: []string{"-mychat"}, cause: "plain command name"},
		{name: "empty command", argv: []string{"", "x"}, cause: "plain command name"},
		{name: "shell metacharacter in the command", argv: []string{"my;chat"}, cause: "plain command name"},
		{name: "apostrophe", argv: []string{"mychat", "it's"}, cause: "apostrophe"},
		{name: "control character", argv: []string{"mychat", "a\x1bb"}, cause: "control characters"},
		{name: "not UTF-8", argv: []string{"mychat", "\xff"}, cause: "not valid UTF-8"},
		{name: "65 words", argv: append([]string{"mychat"}, long[1:]...), cause: "more than 64 words"},
		{name: "over 8 KiB", argv: []string{"mychat", strings.Repeat("a", 8192)}, cause: "longer than 8192 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startSockServer(t, "0.9.3", 22)
			f := sockFixture(t, s, "")
			f.host.Identity = withResume(session.Identity{}, tt.argv...)
			a := f.open(t)
			if err := a.Report(t.Context(), working); err != nil {
				t.Fatalf("Report = %v; an invalid resume argv must not block it", err)
			}
			if diff := cmp.Diff(resumeOf(t, s), [][]string{nil}); diff != "" {
				t.Errorf("resume_argv per report (-got +want):\n%s", diff)
			}
			d := f.diags.all()
			if len(d) != 1 || d[0].Kind != adapter.KindInvalidValue || !strings.Contains(d[0].Detail, tt.cause) {
				t.Errorf("diagnostics %v, want one invalid_value saying %q", d, tt.cause)
			}
			if strings.Contains(d[0].Detail, "mychat") {
				t.Errorf("the diagnostic quotes the argv: %q", d[0].Detail)
			}
		})
	}
	t.Run("64 words and 8 KiB are accepted", func(t *testing.T) {
		words := []string{"mychat"}
		for len(words) < 64 {
			words = append(words, "w")
		}
		if err := checkResume(words); err != nil {
			t.Errorf("64 words: %v", err)
		}
		if err := checkResume([]string{"mychat", strings.Repeat("a", 8192-len("mychat")-2)}); err != nil {
			t.Errorf("8192 bytes: %v", err)
		}
	})
}

func TestResumeRefusedByHerdr(t *testing.T) {
	tests := []struct {
		name string
		code wire.ErrorCode
		want [][]string // resume_argv per report received, over three reports
	}{
		// Off for the rest of the claim after the first refusal.
		{name: "invalid_resume_argv", code: wire.CodeInvalidResumeArgv, want: [][]string{nil, resumeCmd, nil, nil}},
		// Not held yet (say, after a server restart): sent again once a
		// report without it is delivered.
		{name: "resume_not_accepted", code: wire.CodeResumeNotAccepted, want: [][]string{nil, resumeCmd, nil, resumeCmd, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startSockServer(t, "0.9.3", 22)
			refusals := 1
			s.setAnswer(func(r wire.Request) []byte {
				var p wire.ReportAgentParams
				if r.Decode(&p) == nil && p.ResumeArgv != nil && refusals > 0 {
					refusals--
					return wire.NewError(r.ID, tt.code, "no").Line()
				}
				return wire.OK(r.ID).Line()
			})
			f := sockFixture(t, s, "")
			f.host.Identity = withResume(session.Identity{}, resumeCmd...)
			a := f.open(t)
			for _, r := range []adapter.Report{working, blocked, idle} {
				if err := a.Report(t.Context(), r); err != nil {
					t.Fatalf("Report(%v) = %v", r, err)
				}
			}
			if diff := cmp.Diff(resumeOf(t, s), tt.want); diff != "" {
				t.Errorf("resume_argv per report (-got +want):\n%s", diff)
			}
			wantDiag := map[adapter.Kind]int{}
			wantDetails := "delivered"
			if tt.code == wire.CodeInvalidResumeArgv {
				wantDiag[adapter.KindInvalidValue] = 1
				wantDetails = "refused by herdr"
			}
			if diff := cmp.Diff(f.diags.kinds(), wantDiag); diff != "" {
				t.Errorf("diagnostics (-got +want):\n%s", diff)
			}
			if got := a.Details()["resume"]; got != wantDetails {
				t.Errorf("Details resume %q, want %q", got, wantDetails)
			}
		})
	}
}

// TestResumeRefusedOnFirstReport: a report that carried the resume argv
// and was refused as a whole is sent again without it.
func TestResumeRefusedResendsTheReport(t *testing.T) {
	s := startSockServer(t, "0.9.3", 22)
	f := sockFixture(t, s, "")
	a := f.open(t)
	if err := a.Report(t.Context(), working); err != nil { // held, no resume yet
		t.Fatal(err)
	}
	s.setAnswer(func(r wire.Request) []byte {
		var p wire.ReportAgentParams
		if r.Decode(&p) == nil && p.ResumeArgv != nil {
			return wire.NewError(r.ID, wire.CodeInvalidResumeArgv, "no").Line()
		}
		return wire.OK(r.ID).Line()
	})
	a.SetSession(withResume(session.Identity{}, resumeCmd...)) // armed while held
	if err := a.Report(t.Context(), blocked); err != nil {
		t.Fatal(err)
	}
	rs := s.reports(t)
	if len(rs) != 3 || rs[1].ResumeArgv == nil || rs[2].ResumeArgv != nil || rs[2].State != rs[1].State || *rs[2].Seq <= *rs[1].Seq {
		t.Errorf("reports %+v, want the blocked one with the argv, then again without it and a higher seq", rs)
	}
}

// TestResumeAgainstEmulatedHerdr: on both transports, a 0.9.3 server gets
// the resume argv (as "-- argv..." from the CLI, which learns the version
// from `herdr status server --json`, or as resume_argv on the socket) once
// the pane is held, and stores it; a 0.8.2 server never receives it.
func TestResumeAgainstEmulatedHerdr(t *testing.T) {
	for _, version := range []string{herdrtest.Version093, herdrtest.Version082} {
		forTransports(t, func(t *testing.T, tr string) {
			t.Run(version, func(t *testing.T) {
				f := newFixtureOn(t, tr, herdrtest.Options{Version: version})
				f.host.Identity = withResume(session.Identity{ID: "abc"}, resumeCmd...)
				a := f.open(t)
				for _, r := range []adapter.Report{working, idle} {
					if err := a.Report(t.Context(), r); err != nil {
						t.Fatal(err)
					}
				}
				var got [][]string
				for _, c := range f.calls(t) {
					if c.Command == "pane report-agent" {
						got = append(got, c.ResumeArgv())
					}
				}
				want := [][]string{nil, nil}
				stored, _ := f.h.ResumeArgv("w1:p1")
				if version == herdrtest.Version093 {
					want = [][]string{nil, resumeCmd, nil}
					if diff := cmp.Diff(stored, resumeCmd); diff != "" {
						t.Errorf("Herdr stored (-got +want):\n%s", diff)
					}
				} else if stored != nil {
					t.Errorf("a 0.8.2 server stored %q", stored)
				}
				if diff := cmp.Diff(got, want); diff != "" {
					t.Errorf("resume argv per report (-got +want):\n%s", diff)
				}
				if d := f.diags.all(); len(d) != 0 {
					t.Errorf("diagnostics %v", d)
				}
				if info, _ := f.h.Agent("w1:p1"); string(info.AgentStatus) != "done" {
					t.Errorf("status %q, want done", info.AgentStatus)
				}
			})
		})
	}
}

// TestAutoPingTimeout: in auto mode, a server that never answers the ping
// is a timeout of the socket, reported as such; the CLI, which would find
// no time left (and hang on the same server), is not started.
func TestAutoPingTimeout(t *testing.T) {
	f := newFixtureOn(t, "auto", herdrtest.Options{})
	f.set = `{"timeout":"200ms"}`
	f.setFault(t, herdrtest.Fault{Hang: true})
	a := f.open(t)
	var ce *CallError
	if err := a.Report(t.Context(), working); !errors.As(err, &ce) || ce.Kind != adapter.KindTimeout {
		t.Fatalf("Report to a server that never answers the ping = %v, want a timeout", err)
	}
	if d := f.diags.all(); len(d) != 1 || d[0].Detail != "report-agent: socket: no answer before the deadline" {
		t.Errorf("diagnostics %v, want one socket timeout", d)
	}
	for _, c := range f.allCalls(t) {
		if c.Transport == herdrtest.TransportCLI {
			t.Errorf("a CLI process was started: %+v", c)
		}
	}
}
