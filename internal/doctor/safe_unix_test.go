//go:build !windows

package doctor

import (
	"bufio"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// unsafeRunes are what a terminal must never be handed from outside text:
// ESC and BEL start and end escape sequences (a title, a hyperlink, a
// colour), C1's CSI is ESC [ in one byte, and the bidirectional controls
// reorder what is shown.
const unsafeRunes = "\x1b\x07\u009b\u202e\u2066\u200f\u061c"

// planted is outside text that tries to set the terminal's title and flip
// what follows.
const planted = "\x1b]0;pwned\x07\u009b2J\u202eevil\u2066\u200f\u061c"

// pongServer answers every ping on a Unix socket with answer, as a Herdr
// server whose version string is hostile would. It stops when the test
// ends.
func pongServer(t *testing.T, answer string) string {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "h.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // closed by the cleanup
			}
			if _, err := bufio.NewReader(conn).ReadString('\n'); err == nil {
				_, _ = conn.Write([]byte(answer + "\n"))
			}
			conn.Close()
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	return socket
}

// The doctor prints what it takes from outside (a settings key name,
// TERM_PROGRAM, the version in a Herdr server's ping, HERDR_* and TMUX
// values) without a control or bidirectional character, in text and in
// JSON, and still shows it.
func TestOutputIsSafe(t *testing.T) {
	t.Parallel()
	// JSON's escapes of the planted characters, for a key and a version.
	const jsonPlanted = `\u001b]0;pwned\u0007\u009b2J\u202eevil\u2066\u200f\u061c`
	const shown = " ]0;pwned  2J evil   " // planted, cleaned
	for _, tc := range []struct {
		name string
		env  func(t *testing.T) []string
		want []string
	}{
		{
			name: "herdr pane",
			env: func(t *testing.T) []string {
				socket := pongServer(t, `{"id":"panestate-doctor:ping","result":{"type":"pong","version":"0.9.3`+jsonPlanted+`","protocol":22}}`)
				return []string{"HERDR_ENV=1", "HERDR_SOCKET_PATH=" + socket, "HERDR_PANE_ID=w1:p1" + planted,
					"HERDR_BIN_PATH=bin" + planted, "HERDR_OTHER=" + planted}
			},
			want: []string{
				"  ping: Herdr 0.9.3" + shown + ", protocol 22\n",
				"herdr.key" + shown + ": unknown key",
				`binary: "bin` + shown + `" is not an absolute path`,
			},
		},
		{
			name: "terminal",
			env:  func(*testing.T) []string { return []string{"TERM_PROGRAM=" + planted} },
			want: []string{"TERM_PROGRAM=" + shown + " is not a terminal", "herdr.key" + shown + ": unknown key"},
		},
		{
			name: "tmux",
			env:  func(*testing.T) []string { return []string{"TMUX=" + planted} },
			want: []string{"  server: " + shown + "\n", "herdr.key" + shown + ": unknown key"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, false)
			w.writeSettings(t, filepath.Join(w.home, ".chat", "agent"), `{"herdr": {"key`+jsonPlanted+`": 1}}`)
			w.env = append(w.env, tc.env(t)...)
			for _, args := range [][]string{{"--terminal"}, {"--terminal", "--json"}} {
				_, stdout, stderr := w.run(t, args...)
				if stderr != "" {
					t.Fatalf("run %q: stderr %q", args, stderr)
				}
				if i := strings.IndexAny(stdout, unsafeRunes); i >= 0 {
					t.Errorf("run %q: output has an unsafe character at byte %d:\n%q", args, i, stdout)
				}
				if len(args) > 1 {
					if !json.Valid([]byte(stdout)) || !strings.Contains(stdout, jsonPlanted) {
						t.Errorf("run %q: not JSON with the planted text escaped:\n%s", args, stdout)
					}
					continue
				}
				// Not vacuous: each planted text is shown, cleaned.
				for _, want := range tc.want {
					if !strings.Contains(stdout, want) {
						t.Errorf("output does not show %q:\n%s", want, stdout)
					}
				}
			}
		})
	}
}

// The host's loaded extensions are outside text the JSON report carries
// (in the explanation's host): they are escaped there too, and the text
// report, which does not show them, stays clean.
func TestLoadedExtensionsAreSafe(t *testing.T) {
	t.Parallel()
	const jsonPlanted = `\u001b]0;pwned\u0007\u009b2J\u202eevil\u2066\u200f\u061c`
	w := newWorld(t, false)
	for _, args := range [][]string{{"--loaded-extension", "/ext/" + planted}, {"--loaded-extension", "/ext/" + planted, "--json"}} {
		_, stdout, stderr := w.run(t, args...)
		if stderr != "" {
			t.Fatalf("run %q: stderr %q", args, stderr)
		}
		if i := strings.IndexAny(stdout, unsafeRunes); i >= 0 {
			t.Errorf("run %q: output has an unsafe character at byte %d:\n%q", args, i, stdout)
		}
		if len(args) > 2 && (!json.Valid([]byte(stdout)) || !strings.Contains(stdout, `"/ext/`+jsonPlanted+`"`)) {
			t.Errorf("run %q: not JSON with the extension escaped:\n%s", args, stdout)
		}
	}
}
