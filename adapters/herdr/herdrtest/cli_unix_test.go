//go:build !windows

package herdrtest

import (
	"bufio"
	"net"
	"path/filepath"
	"sync"
	"testing"
)

// TestCLIEmptyResponse: a server that reads the ping and closes without an
// answer makes the CLI fail as Herdr's does, returning the io::Error that
// wraps ApiClientError::EmptyResponse from main (src/api/client.rs:
// read_json_line; src/cli.rs: api_client_error_to_io).
func TestCLIEmptyResponse(t *testing.T) {
	r := newRunner(t, Options{})
	socket := filepath.Join(t.TempDir(), "mute.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed by the cleanup below
			}
			_, _ = bufio.NewReader(c).ReadString('\n')
			c.Close()
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	r.env = []string{"HERDR_SOCKET_PATH=" + socket}
	r.want(result{Code: 1, Stderr: "Error: Custom { kind: Other, error: EmptyResponse }\n"}, report(p, src, lbl, "working")...)
}
