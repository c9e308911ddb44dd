package herdr

import (
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/session"
)

// route is a call's command and transport, for comparing call lists.
type route struct {
	Command   string
	Transport herdrtest.Transport
}

func routes(calls []herdrtest.Call) []route {
	out := make([]route, 0, len(calls))
	for _, c := range calls {
		out = append(out, route{c.Command, c.Transport})
	}
	return out
}

// TestAutoReleaseTakesTheRouteThatDelivered: with transport auto, a socket
// that does not answer while the CLI works sends every report of the claim
// over the CLI, and the release too: the pane is released.
func TestAutoReleaseTakesTheRouteThatDelivered(t *testing.T) {
	f := newFixtureOn(t, "auto", herdrtest.Options{})
	a := f.open(t)
	f.setFault(t, herdrtest.Fault{SocketUnreachable: true})
	for _, r := range []adapter.Report{working, blocked} {
		if err := a.Report(t.Context(), r); err != nil {
			t.Fatalf("Report(%v) = %v, want it delivered over the CLI", r, err)
		}
	}
	// The release does not try the socket first: where it does not
	// answer at all, that try would spend the release's short budget.
	var dials atomic.Int32
	peer := a.sock.peer
	a.sock.peer = func(c net.Conn) error {
		dials.Add(1)
		if peer == nil {
			return nil
		}
		return peer(c)
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatalf("Release = %v, want it delivered over the CLI", err)
	}
	if n := dials.Load(); n != 0 {
		t.Errorf("the release connected to the socket %d times, want it sent over the CLI only", n)
	}
	if info, err := f.h.Agent(f.h.Pane); err != nil || info.Found {
		t.Errorf("after the release the pane shows %+v (%v), want it released", info, err)
	}
	want := []route{
		{"pane report-agent", herdrtest.TransportCLI},
		{"pane report-agent", herdrtest.TransportCLI},
		{"pane release-agent", herdrtest.TransportCLI},
	}
	if diff := cmp.Diff(routes(f.calls(t)), want); diff != "" {
		t.Errorf("calls (-got +want):\n%s", diff)
	}
	if got := a.Details()["transport_used"]; got != "cli" {
		t.Errorf("transport_used %q, want cli", got)
	}
}

// TestAutoReleaseFallsBackToCLI: with transport auto, a release whose socket
// call fails at the socket level (the socket stopped answering after the
// claim's reports went over it) is sent again over the CLI.
func TestAutoReleaseFallsBackToCLI(t *testing.T) {
	f := newFixtureOn(t, "auto", herdrtest.Options{})
	a := f.open(t)
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	f.setFault(t, herdrtest.Fault{SocketUnreachable: true})
	if err := a.Release(t.Context()); err != nil {
		t.Fatalf("Release = %v, want it delivered over the CLI", err)
	}
	if info, err := f.h.Agent(f.h.Pane); err != nil || info.Found {
		t.Errorf("after the release the pane shows %+v (%v), want it released", info, err)
	}
	want := []route{
		{"pane report-agent", herdrtest.TransportSocket},
		{"pane release-agent", herdrtest.TransportCLI},
	}
	if diff := cmp.Diff(routes(f.calls(t)), want); diff != "" {
		t.Errorf("calls (-got +want):\n%s", diff)
	}
	if d := f.diags.all(); len(d) != 0 {
		t.Errorf("a release delivered over the CLI emitted %v", d)
	}
}

// TestRestartStartsTheClaimOver: a Herdr restart that the adapter notices
// starts the claim over, so the report that puts the state back carries the
// session identity and is followed by the resume argv, after every restart:
// Herdr can reopen the session after a second restart too. The adapter
// notices a restart when a call finds no server, and when the server
// restarted between two reports that both succeed (the agent was idle
// meanwhile): the new server's socket is a new file.
func TestRestartStartsTheClaimOver(t *testing.T) {
	for _, tc := range []struct {
		name string
		// restart restarts f's server between two reports of a.
		restart func(t *testing.T, f *fixture, a *Adapter)
	}{
		{name: "a call finds no server", restart: restartUnderACall},
		{name: "a call finds no server, the socket's file unchanged", restart: func(t *testing.T, f *fixture, a *Adapter) {
			restartUnderACall(t, f, a)
			// The new socket's file is taken as seen already (a server
			// on Windows may keep its marker file): only the answer
			// server_not_running tells of the restart.
			file, ok := readServerFile(f.h.Socket)
			if !ok {
				t.Fatal("cannot read the new socket's file")
			}
			a.serverFile, a.serverSeen = file, true
		}},
		{name: "between two reports", restart: func(t *testing.T, f *fixture, a *Adapter) {
			// A second name keeps the old socket's inode in use, so that
			// the new socket cannot get its number back: a real server's
			// start takes long enough for the file's time to tell them
			// apart, an emulated restart may not.
			keep := f.h.Socket + ".old"
			if err := os.Link(f.h.Socket, keep); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(keep)
			if err := f.h.StartServer(); err != nil { // a running server restarts
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forTransports(t, func(t *testing.T, transport string) {
				testRestartStartsTheClaimOver(t, transport, tc.restart)
			})
		})
	}
}

// restartUnderACall stops f's server, makes a report of a find no server,
// and starts the server again.
func restartUnderACall(t *testing.T, f *fixture, a *Adapter) {
	t.Helper()
	if err := f.h.StopServer(); err != nil {
		t.Fatal(err)
	}
	if err := a.Report(t.Context(), blocked); err == nil {
		t.Fatal("Report with the server down = nil, want server_not_running")
	}
	if err := f.h.StartServer(); err != nil {
		t.Fatal(err)
	}
}

func testRestartStartsTheClaimOver(t *testing.T, transport string, restart func(*testing.T, *fixture, *Adapter)) {
	f := newFixtureOn(t, transport, herdrtest.Options{Version: herdrtest.Version093})
	f.host.Identity = withResume(session.Identity{ID: "sess-1"}, resumeCmd...)
	a := f.open(t)
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		for _, c := range f.allCalls(t) {
			f.skip = max(f.skip, c.Arrival)
		}
		restart(t, f, a)
		if err := a.Report(t.Context(), blocked); err != nil { // the retry, or the refresh
			t.Fatalf("restart %d: Report = %v", n, err)
		}
		var ident, resume int
		for _, c := range f.calls(t) {
			if c.Command != "pane report-agent" || c.Arrival == 0 {
				continue
			}
			if id, ok := c.Flag("agent_session_id"); ok && id == "sess-1" {
				ident++
			} else if id, ok := c.Flag("agent-session-id"); ok && id == "sess-1" {
				ident++
			}
			if cmp.Equal(c.ResumeArgv(), resumeCmd) {
				resume++
			}
		}
		if ident == 0 || resume != 1 {
			t.Errorf("restart %d: after the restart %d reports carried the session id and %d the resume argv, want at least 1 and 1",
				n, ident, resume)
		}
		if argv, _ := f.h.ResumeArgv(f.h.Pane); !cmp.Equal(argv, resumeCmd) {
			t.Errorf("restart %d: Herdr holds resume argv %q", n, argv)
		}
		if info, _ := f.h.Agent(f.h.Pane); info.AgentStatus != "blocked" {
			t.Errorf("restart %d: pane shows %+v, want blocked", n, info)
		}
	}
}

// TestServerRestartedByTheSocketFile: what the look at the socket's file
// takes for another server (another file; where the file system reports no
// birth time, as for Windows' marker, the same one written since, a marker
// rewritten in place) and what it does not (the first look, a mode change,
// a path that cannot be read; with birth times, a write in place or a
// touch, which a new server's socket never is: TestRestartLook).
func TestServerRestartedByTheSocketFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "herdr.sock")
	write := func() {
		t.Helper()
		if err := os.WriteFile(path, []byte("marker"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a := &Adapter{socket: path}
	old := time.Now().Add(-time.Hour)
	birth := false // the file system reports birth times: read at the first look
	steps := []struct {
		name    string
		change  func()
		want    bool
		inPlace bool // want is true only without birth times
	}{
		{"no file yet", func() {}, false, false},
		{"the first look", func() {
			write()
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			f, _ := readServerFile(path)
			birth = f.birth
		}, false, false},
		{"nothing changed", func() {}, false, false},
		{"a mode change", func() {
			if err := os.Chmod(path, 0o400); err != nil {
				t.Fatal(err)
			}
		}, false, false},
		{"written in place", func() {
			if err := os.Chmod(path, 0o600); err != nil {
				t.Fatal(err)
			}
			write()
		}, false, true},
		{"gone", func() {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, false, false},
		{"back as another file", func() {
			keep := filepath.Join(t.TempDir(), "keep") // no reuse of the inode number
			write()
			if err := os.Link(path, keep); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			write()
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}, true, false},
	}
	for _, st := range steps {
		st.change()
		if st.inPlace {
			st.want = !birth
		}
		if got := a.serverRestarted(); got != st.want {
			t.Errorf("%s: serverRestarted = %v, want %v", st.name, got, st.want)
		}
	}
}
