package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// hangBound ends a command that waits on a stdin that never ends: the
// test then fails, where it would otherwise hang until go test's timeout.
const hangBound = time.Minute

// TestPersonsCommandsDoNotWaitOnStdin runs the binary as a person would,
// with a stdin that stays open and empty (a pipe nobody closes, or a
// terminal nobody types on): `hook --print-config` with no agent is a usage
// error (exit 2), and `hook` with no agent from a terminal says what is
// wrong and exits 0, the status of every hook run.
func TestPersonsCommandsDoNotWaitOnStdin(t *testing.T) {
	bin := buildPanestate(t)
	tests := []struct {
		name     string
		args     []string
		terminal bool // stdin is a terminal, else a pipe
		wantCode int
		wantErr  string
	}{
		{name: "print-config with no agent, stdin a pipe", args: []string{"hook", "--print-config"}, wantCode: 2, wantErr: "--print-config takes one agent"},
		{name: "print-config with no agent, stdin a terminal", args: []string{"hook", "--print-config"}, terminal: true, wantCode: 2, wantErr: "--print-config takes one agent"},
		{name: "install with no agent", args: []string{"install"}, wantCode: 2, wantErr: "install takes one agent"},
		{name: "hook with no agent, stdin a terminal", args: []string{"hook"}, terminal: true, wantErr: "hook takes one agent"},
		{name: "hook with an unknown agent, stdin a terminal", args: []string{"hook", "vim"}, terminal: true, wantErr: "unknown agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdin, keep *os.File
			if tt.terminal {
				ptmx, tty, err := pty.Open()
				if err != nil {
					t.Fatalf("opening a pty: %v", err)
				}
				stdin, keep = tty, ptmx
			} else {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				stdin, keep = r, w
			}
			defer stdin.Close()
			defer keep.Close() // open until the command has ended
			ctx, cancel := context.WithTimeout(t.Context(), hangBound)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, tt.args...)
			cmd.Env = []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir(), "TMUX=/nonexistent/s,1,0", "TMUX_PANE=%1"}
			cmd.Stdin = stdin
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("still waiting on stdin after %v", hangBound)
			}
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantErr)
			}
		})
	}
}
