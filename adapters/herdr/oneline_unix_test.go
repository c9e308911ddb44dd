//go:build unix

package herdr

import (
	"bytes"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// TestCLITransportSendsOneRequestLinePerConnection: over the CLI transport
// of Herdr 0.8.2, every connection made to the server, the adapter's own
// check of the server's user included, carries one request line, as
// Herdr's CLI does (src/api/client.rs: a ping on a connection of its own,
// then the request on another): none is opened and closed with nothing
// sent.
func TestCLITransportSendsOneRequestLinePerConnection(t *testing.T) {
	h := startHerdr(t, herdrtest.Options{Version: herdrtest.Version082})
	// A proxy in front of the emulated server records what each
	// connection carried to it.
	proxy := filepath.Join(t.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", proxy)
	if err != nil {
		t.Fatal(err)
	}
	socket := ""
	var env []string
	for _, kv := range h.Env() {
		if v, ok := strings.CutPrefix(kv, "HERDR_SOCKET_PATH="); ok {
			socket, kv = v, "HERDR_SOCKET_PATH="+proxy
		}
		env = append(env, kv)
	}
	var (
		mu   sync.Mutex
		sent [][]byte
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				s, err := net.Dial("unix", socket)
				if err != nil {
					return
				}
				defer s.Close()
				var got bytes.Buffer
				back := make(chan struct{})
				go func() { _, _ = io.Copy(c, s); close(back) }()
				_, _ = io.Copy(io.MultiWriter(s, &got), c) // until the client is done
				s.(*net.UnixConn).CloseWrite()
				<-back
				mu.Lock()
				sent = append(sent, got.Bytes())
				mu.Unlock()
			})
		}
	})
	f := &fixture{h: h, drv: Driver{StateDir: filepath.Join(t.TempDir(), "state")}, diags: &diags{}, env: adapter.Env(env), host: interactive, transport: "cli"}
	a := f.open(t)
	if err := a.Report(t.Context(), adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	ln.Close()
	wg.Wait() // every client has closed its connections: the adapter's and the CLI's
	if len(sent) == 0 {
		t.Fatal("nothing reached the server")
	}
	for _, b := range sent {
		if bytes.Count(b, []byte("\n")) != 1 || !bytes.HasSuffix(b, []byte("\n")) || len(bytes.TrimSpace(b)) == 0 {
			t.Errorf("a connection carried %q, want one request line", b)
		}
	}
}
