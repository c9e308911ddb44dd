//go:build linux || darwin

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDoctorSaysWhatEachAgentsHookWouldDo runs `panestate doctor` with the
// settings files the hook reads: the global file for every agent, and an
// agent's own file that turns tmux off for that agent only.
func TestDoctorSaysWhatEachAgentsHookWouldDo(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".panestate", "agent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "codex.json"), []byte(`{"tmux": {"enabled": false}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A tmux pane whose server is never asked, and a tmux executable that
	// is never run: the doctor runs no probe, Explain starts nothing.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "tmux"), []byte("#!/bin/sh\nexit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	inTmux := []string{"HOME=" + home, "PATH=" + bin, "TMUX=" + filepath.Join(home, "no-server") + ",1,0", "TMUX_PANE=%3"}
	tests := []struct {
		name string
		args []string
		env  []string
		want []string // the lines after "hooks:"; nil: no per-agent part
	}{
		{
			name: "in a tmux pane",
			args: []string{"doctor", "--probe=false", "--project", home},
			env:  inTmux,
			want: []string{
				"  claude-code: starts its bridge, which would report to tmux; its file " + filepath.Join(dir, "claude-code.json") + ": missing",
				"  codex: starts its bridge, which would report nowhere; its file " + filepath.Join(dir, "codex.json") + ": loaded; it turns off tmux",
				"  gemini: starts its bridge, which would report to tmux; its file " + filepath.Join(dir, "gemini.json") + ": missing",
			},
		},
		{
			name: "outside every workspace",
			args: []string{"doctor", "--probe=false", "--project", home},
			env:  []string{"HOME=" + home},
			want: []string{
				"  claude-code: starts nothing: no workspace pane here (no HERDR_* pane variables, no TMUX_PANE)",
				"  codex: starts nothing: no workspace pane here (no HERDR_* pane variables, no TMUX_PANE)",
				"  gemini: starts nothing: no workspace pane here (no HERDR_* pane variables, no TMUX_PANE)",
			},
		},
		{name: "json", args: []string{"doctor", "--probe=false", "--project", home, "--json"}, env: inTmux},
		{name: "another app", args: []string{"doctor", "--probe=false", "--project", home, "--app", "mychat"}, env: inTmux},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, nil, &stdout, &stderr, tt.env); code == 2 {
				t.Fatalf("exit 2: %s", stderr.String())
			}
			var got []string
			if _, after, ok := strings.Cut(stdout.String(), "\nhooks: "); ok {
				got = strings.Split(strings.TrimSuffix(after, "\n"), "\n")[1:]
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("per-agent lines (-got +want):\n%s\nstdout:\n%s", diff, stdout.String())
			}
		})
	}
}
