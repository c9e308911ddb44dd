package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestHookExitsZeroWhenItsStderrIsClosed: an agent that closed its end of
// the hook's stderr must still see status 0. Go ends a program that writes
// to a broken pipe on fd 1 or 2 with SIGPIPE unless it ignores the signal;
// a bad payload is a line on stderr.
func TestHookExitsZeroWhenItsStderrIsClosed(t *testing.T) {
	bin := buildPanestate(t)
	tests := []struct {
		name, agent, stdin string
	}{
		{name: "a payload that is not JSON", agent: "gemini", stdin: "SECRET-MARKER{"},
		{name: "an unknown agent", agent: "vim", stdin: "{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close() // nobody reads the hook's stderr
			defer w.Close()
			cmd := exec.CommandContext(t.Context(), bin, "hook", tt.agent)
			cmd.Env = []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir(), "TMUX=/nonexistent/s,1,0", "TMUX_PANE=%1"}
			cmd.Stdin = strings.NewReader(tt.stdin)
			cmd.Stderr = w
			var exit *exec.ExitError
			if err := cmd.Run(); errors.As(err, &exit) {
				t.Errorf("hook ended with %v, want status 0", exit.ProcessState)
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
}
