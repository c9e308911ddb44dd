//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// hungWorkspaces are the workspaces a chat host can find hung at quit, each
// with its own timeout set to the longest it accepts (60 s): only the
// registry's release budget bounds the quit.
var hungWorkspaces = []struct {
	name  string
	setup func(tb testing.TB, h *herdrtest.Herdr, home string) []string // the extra environment
	// heal makes the workspace answer again, for the test's own Detach at
	// its end (detachAtEnd).
	heal func(tb testing.TB, h *herdrtest.Herdr, home string)
}{
	{"herdr hung, ignoring SIGTERM", func(tb testing.TB, h *herdrtest.Herdr, home string) []string {
		writeFile(tb, filepath.Join(home, ".chat", "agent", "settings.json"), `{"herdr":{"timeout":"60s"}}`)
		if err := h.SetFault(herdrtest.Fault{Hang: true, HangIgnoreTERM: true}); err != nil {
			tb.Fatal(err)
		}
		return nil
	}, healHerdr},
	{"tmux hung, ignoring SIGTERM", func(tb testing.TB, h *herdrtest.Herdr, home string) []string {
		// A fake tmux on PATH that never answers; the emulated Herdr
		// beside it stays healthy.
		bin := filepath.Join(home, "bin")
		writeFile(tb, filepath.Join(bin, "tmux"), "#!/bin/sh\n[ -e \"$0.ok\" ] && exit 0\ntrap '' TERM\nsleep 20\n")
		if err := os.Chmod(filepath.Join(bin, "tmux"), 0o755); err != nil {
			tb.Fatal(err)
		}
		writeFile(tb, filepath.Join(home, ".chat", "agent", "settings.json"), `{"tmux":{"timeout":"60s"}}`)
		return []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
			"TMUX=" + filepath.Join(home, "tmux.sock") + ",1,0", "TMUX_PANE=%1"}
	}, func(tb testing.TB, h *herdrtest.Herdr, home string) {
		writeFile(tb, filepath.Join(home, "bin", "tmux.ok"), "")
		healHerdr(tb, h, home)
	}},
}

func healHerdr(tb testing.TB, h *herdrtest.Herdr, _ string) {
	if err := h.SetFault(herdrtest.Fault{}); err != nil {
		tb.Error(err)
	}
}

func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// quitHung runs the chat host in-process with one workspace hung while a
// report is in flight, and returns how long it took to quit after its input
// ended, and what it printed.
func quitHung(tb testing.TB, i int) (time.Duration, result) {
	tb.Helper()
	h := herdrtest.StartT(tb, herdrtest.Options{})
	home := tb.TempDir()
	env := append(h.Env(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"))
	env = append(env, hungWorkspaces[i].setup(tb, h, home)...)
	pr, pw := io.Pipe()
	done := make(chan result, 1)
	ctx, cancel := context.WithCancel(detachAtEnd(tb, context.Background()))
	defer cancel()
	// Before detachAtEnd's cleanup: the workspace answers again, so that
	// the release it makes is answered and the adapter closed.
	tb.Cleanup(func() { hungWorkspaces[i].heal(tb, h, home) })
	go func() {
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"--project", tb.TempDir(), "-q", "-v"}, pr, &stdout, &stderr, env)
		pr.Close()
		done <- result{code, stdout.String(), stderr.String()}
	}()
	if _, err := io.WriteString(pw, "{\"op\":\"agent_start\"}\n"); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	pw.Close()
	r := <-done
	return time.Since(start), r
}

// With any workspace hung, the chat host still quits, exits 0, and says
// that the pane was not released cleanly. How fast is
// BenchmarkQuitWithAHungWorkspace's figure (quit-ms; 2 s at most).
func TestQuitWithAHungWorkspace(t *testing.T) {
	for i, tt := range hungWorkspaces {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, r := quitHung(t, i)
			if r.code != 0 || !strings.HasSuffix(r.stdout, "detached\n") {
				t.Errorf("exit %d, stdout %q; want 0 and detached\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, "not released cleanly") {
				t.Errorf("stderr does not say the release failed:\n%s", r.stderr)
			}
		})
	}
}

// BenchmarkQuitWithAHungWorkspace measures quit-ms: from the end of the
// chat host's input to its return, with one workspace hung (its own
// timeout 60 s).
func BenchmarkQuitWithAHungWorkspace(b *testing.B) {
	for i, tt := range hungWorkspaces {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			var total time.Duration
			for b.Loop() {
				took, r := quitHung(b, i)
				if r.code != 0 {
					b.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
				}
				total += took
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "quit-ms")
		})
	}
}
