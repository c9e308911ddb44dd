//go:build linux || darwin

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
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
	// Outside every pane the doctor looks for the bridge of the tab its
	// own terminal is, when the test runs on one: in a runtime directory
	// of the test's.
	runtime := "XDG_RUNTIME_DIR=" + t.TempDir()
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
				"  (progstatus, terminal and wezterm not checked: they write to the agent's terminal, and this is not on one; run this in the agent's tab, or give --terminal)",
			},
		},
		{
			// In tmux 3.7, which shows OSC 9;4 itself: the terminal
			// reporter runs for the agents that leave it to panestate;
			// progstatus stays off inside tmux unless forced.
			name: "on the terminal of a tmux 3.7 pane",
			args: []string{"doctor", "--probe=false", "--project", home, "--terminal"},
			env:  append(inTmux, "TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.7c"),
			want: []string{
				"  claude-code: starts its bridge, which would report to tmux; " + progstatusInTmux + "; " +
					"terminal: adapter inactive: " + drawsProgress["claude-code"] + "; " + weztermInTmux + "; its file " + filepath.Join(dir, "claude-code.json") + ": missing",
				"  codex: starts its bridge, which would report to terminal; " + progstatusInTmux + "; " + weztermInTmux + "; its file " + filepath.Join(dir, "codex.json") + ": loaded; it turns off tmux",
				"  gemini: starts its bridge, which would report to terminal, tmux; " + progstatusInTmux + "; " + weztermInTmux + "; its file " + filepath.Join(dir, "gemini.json") + ": missing",
			},
		},
		{
			name: "outside every workspace",
			args: []string{"doctor", "--probe=false", "--project", home},
			env:  []string{"HOME=" + home, runtime},
			want: []string{
				"  claude-code: " + nothingInTab + progstatusUnprobed + "; terminal: adapter inactive: " + noTermProgram + "; " + weztermNotHere + "; its file " + filepath.Join(dir, "claude-code.json") + ": missing",
				"  codex: " + nothingInTab + progstatusUnprobed + "; terminal: adapter inactive: " + noTermProgram + "; " + weztermNotHere + "; its file " + filepath.Join(dir, "codex.json") + ": loaded",
				"  gemini: " + nothingInTab + progstatusUnprobed + "; terminal: adapter inactive: " + noTermProgram + "; " + weztermNotHere + "; its file " + filepath.Join(dir, "gemini.json") + ": missing",
			},
		},
		{
			// A plain Ghostty tab: the terminal reporter runs for the
			// agents that leave the indicator to panestate.
			name: "in a plain Ghostty tab",
			args: []string{"doctor", "--probe=false", "--project", home},
			env:  []string{"HOME=" + home, runtime, "TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0"},
			want: []string{
				"  claude-code: " + nothingInTab + progstatusUnprobed + "; terminal: adapter inactive: " + drawsProgress["claude-code"] + "; " + weztermNotHere + "; its file " + filepath.Join(dir, "claude-code.json") + ": missing",
				"  codex: " + bridgeInTab + "terminal if the agent has a terminal; its file " + filepath.Join(dir, "codex.json") + ": loaded",
				"  gemini: " + bridgeInTab + "terminal if the agent has a terminal; its file " + filepath.Join(dir, "gemini.json") + ": missing",
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
			want := tt.want
			if n := linkingNote(); want != nil && n != "" {
				// This test binary is dynamically linked (a cgo build).
				want = append(slices.Clone(want), "  note: "+n)
			}
			if diff := cmp.Diff(got, want); diff != "" {
				t.Errorf("per-agent lines (-got +want):\n%s\nstdout:\n%s", diff, stdout.String())
			}
		})
	}
}

// What the doctor says of a plain terminal tab.
const (
	nothingInTab = "starts nothing: no workspace pane here (no HERDR_* pane variables, no TMUX_PANE), and no reporter would write to the agent's terminal: "
	bridgeInTab  = "starts its bridge on the agent's terminal (a plain terminal tab: no HERDR_* pane variables, no TMUX_PANE), which would report to "
	// progstatusUnprobed is why progstatus does not report in a tab whose
	// terminal no probe answered.
	weztermInTmux      = "wezterm: adapter inactive: inside tmux (TMUX is set), which drops OSC 1337 unless wrapped; set wezterm.enabled to true, and tmux's allow-passthrough to on, where tmux runs in WezTerm"
	weztermNotHere     = "wezterm: adapter inactive: WezTerm was not detected (TERM_PROGRAM is not WezTerm; WEZTERM_PANE and WEZTERM_EXECUTABLE are unset); over ssh, where they are not forwarded, set wezterm.enabled to true"
	progstatusUnprobed = "progstatus: adapter inactive: the host did not probe the terminal (PANESTATE_PROGSTATUS is unset) and its environment names none known to read OSC 7501; " +
		"have the host run the probe, or set progstatus.enabled to true to force it"
	noTermProgram = "no terminal known to show OSC 9;4 progress was detected (TERM_PROGRAM, WT_SESSION, ConEmuPID, WEZTERM_PANE are unset); set terminal.enabled to true to force it"
)

// progstatusInTmux is why progstatus does not report inside tmux.
const progstatusInTmux = "progstatus: adapter inactive: inside tmux (TMUX is set), which drops OSC 7501 and does not pass the probe's answer back; " +
	"set progstatus.enabled to true and tmux's allow-passthrough to on to report to the terminal tmux runs in"

// The per-agent part of the doctor prints what it takes from outside (the
// HOME folder the settings paths are built from, an agent file's parse
// error) as the rest of the doctor does: without a control or
// bidirectional character, and still shown.
func TestDoctorPerAgentLinesAreSafe(t *testing.T) {
	const planted = "\x1b]0;pwned\x07\u009b2J\u202eevil\u2066"
	const shown = " ]0;pwned  2J evil " // planted, cleaned
	home := filepath.Join(t.TempDir(), "home"+planted)
	dir := filepath.Join(home, ".panestate", "agent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "codex.json"), []byte("{\"tmux\": \"not an object\u202e\"}"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "tmux"), []byte("#!/bin/sh\nexit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + bin, "TMUX=" + filepath.Join(bin, "no-server") + ",1,0", "TMUX_PANE=%3"}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"doctor", "--probe=false", "--project", bin}, nil, &stdout, &stderr, env); code == 2 {
		t.Fatalf("exit 2: %s", stderr.String())
	}
	_, hooks, ok := strings.Cut(stdout.String(), "\nhooks: ")
	if !ok {
		t.Fatalf("no per-agent part:\n%s", stdout.String())
	}
	if i := strings.IndexAny(hooks, "\x1b\x07\u009b\u202e\u2066"); i >= 0 {
		t.Errorf("per-agent part has an unsafe character at byte %d:\n%q", i, hooks)
	}
	// Not vacuous: the planted folder is shown, cleaned.
	if want := "home" + shown; !strings.Contains(hooks, want) {
		t.Errorf("per-agent part does not show %q:\n%s", want, hooks)
	}
}
