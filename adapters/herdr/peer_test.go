package herdr

import (
	"errors"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/adapters/herdr/internal/wire"
	"github.com/panestate/panestate/session"
)

// asUID makes a's server check see the server as running under uid.
func asUID(a *Adapter, uid int) {
	check := func(c net.Conn) error {
		return checkPeerUID(c, func(net.Conn) (int, error) { return uid, nil }, os.Getuid())
	}
	a.peer = check
	a.ownerOf = func(string) (int, error) { return uid, nil }
	if a.sock != nil {
		a.sock.peer = check
	}
}

// TestForeignServerRefused: a server that runs as another user gets
// nothing, neither over the socket nor through the CLI (which would hand it
// the same request), and no transport falls back to the other: Report
// fails with one protocol_rejected diagnostic that names the two uids.
func TestForeignServerRefused(t *testing.T) {
	for _, transport := range []string{"auto", "socket", "cli"} {
		t.Run(transport, func(t *testing.T) {
			f := newFixtureOn(t, transport, herdrtest.Options{})
			f.host.Identity = session.Identity{ID: "secret-session"}
			a := f.open(t)
			asUID(a, os.Getuid()+1)
			err := a.Report(t.Context(), working)
			var ce *CallError
			if !errors.As(err, &ce) || ce.Kind != adapter.KindProtocolRejected {
				t.Fatalf("Report = %v, want a protocol_rejected CallError", err)
			}
			if err := a.Release(t.Context()); err == nil {
				t.Error("Release to a foreign server = nil, want it refused")
			}
			for _, c := range f.allCalls(t) {
				if c.Command != "ping" {
					t.Errorf("the foreign server got %s over %s", c.Command, c.Transport)
				}
			}
			d := f.diags.all()
			if len(d) != 1 || d[0].Kind != adapter.KindProtocolRejected || !strings.Contains(d[0].Detail, "refused: the server runs as uid") {
				t.Errorf("diagnostics %v, want one protocol_rejected saying the server was refused", d)
			}
			if info, _ := f.h.Agent(f.h.Pane); info.Found {
				t.Errorf("pane shows %+v", info)
			}
		})
	}
}

// TestPeerCheckPassesOwnServer: the platform's check reads the emulated
// server (this process) as running under this user.
func TestPeerCheckPassesOwnServer(t *testing.T) {
	check := peerCheck()
	if runtime.GOOS == "windows" {
		if check != nil {
			t.Fatal("a peer check on Windows, where none is documented")
		}
		return
	}
	h := startHerdr(t, herdrtest.Options{})
	conn, err := wire.Dial(t.Context(), h.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := check(conn); err != nil {
		t.Fatalf("peer check of this user's server = %v", err)
	}
}
