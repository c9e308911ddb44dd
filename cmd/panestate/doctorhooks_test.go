package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/hook"
)

// TestDoctorSaysWhetherEachAgentsHooksAreInstalled: per agent, the doctor
// says whether the agent's settings file runs `panestate hook <agent>` on
// every event panestate listens to, which events lack it, or why it
// cannot tell, and what to run.
func TestDoctorSaysWhetherEachAgentsHooksAreInstalled(t *testing.T) {
	home := t.TempDir()
	claude := filepath.Join(home, filepath.FromSlash(hook.SettingsFile(hook.ClaudeCode)))
	if err := os.MkdirAll(filepath.Dir(claude), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := install(hook.ClaudeCode, claude, "panestate", time.Now()); err != nil {
		t.Fatal(err)
	}
	gemini := filepath.Join(home, filepath.FromSlash(hook.SettingsFile(hook.Gemini)))
	if err := os.MkdirAll(filepath.Dir(gemini), 0o700); err != nil {
		t.Fatal(err)
	}
	// Only SessionStart and AfterAgent run it.
	const partial = `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "panestate hook gemini"}]}],
		"AfterAgent": [{"hooks": [{"type": "command", "command": "/opt/panestate hook gemini"}]}]}}`
	if err := os.WriteFile(gemini, []byte(partial), 0o600); err != nil {
		t.Fatal(err)
	}
	codex := filepath.Join(home, filepath.FromSlash(hook.SettingsFile(hook.Codex)))
	var lacking []string
	for _, ev := range hook.Events(hook.Gemini) {
		if ev != "SessionStart" && ev != "AfterAgent" {
			lacking = append(lacking, ev)
		}
	}
	want := []string{
		"  claude-code: installed: " + claude + " runs panestate's hook on every event it listens to",
		"  codex: not installed: " + codex + " is missing; run `panestate install codex`",
		"  gemini: partly installed: " + gemini + " lacks it on " + strings.Join(lacking, ", ") + "; run `panestate install gemini`",
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"doctor", "--probe=false"}, nil, &stdout, &stderr, []string{"HOME=" + home}); code == 2 {
		t.Fatalf("exit 2: %s", stderr.String())
	}
	_, after, ok := strings.Cut(stdout.String(), "\ninstalled: ")
	if !ok {
		t.Fatalf("no part on the installed hooks:\n%s", stdout.String())
	}
	got := strings.Split(after, "\n")[1:]
	if len(got) > len(want) {
		got = got[:len(want)]
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("installed lines (-got +want):\n%s\nstdout:\n%s", diff, stdout.String())
	}

	// A settings file that cannot be read safely is said so, not read.
	if err := os.MkdirAll(filepath.Dir(codex), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(codex, []byte("null"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	run([]string{"doctor", "--probe=false"}, nil, &stdout, &stderr, []string{"HOME=" + home})
	if !strings.Contains(stdout.String(), "  codex: cannot tell: "+codex+": hook: settings file: not a JSON object") {
		t.Errorf("a settings file holding null:\n%s", stdout.String())
	}
}

// TestDoctorForTheHooksShowsNoProject: the hooks' bridge reads no project
// settings, so `panestate doctor` names none (no "untrusted" project line
// for the working directory); for another app, which has projects, it
// still does.
func TestDoctorForTheHooksShowsNoProject(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"doctor", "--probe=false"}, nil, &stdout, &stderr, env); code == 2 {
		t.Fatalf("exit 2: %s", stderr.String())
	}
	if strings.Contains(stdout.String(), "untrusted") || strings.Contains(stdout.String(), "settings project:") {
		t.Errorf("the doctor of the hooks names a project:\n%s", stdout.String())
	}
	stdout.Reset()
	run([]string{"doctor", "--probe=false", "--app", "mychat", "--project", home}, nil, &stdout, &stderr, env)
	if !strings.Contains(stdout.String(), "settings project: "+filepath.Join(home, ".mychat", "settings.json")) {
		t.Errorf("the doctor of another app names no project:\n%s", stdout.String())
	}
}

// TestDoctorHelpGivesTheDefaultApp: `panestate doctor -h` gives the app it
// asks about unless told, panestate, and nothing more than the usage.
func TestDoctorHelpGivesTheDefaultApp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"doctor", "-h"}, nil, &stdout, &stderr, []string{"HOME=" + t.TempDir()}); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	if !strings.Contains(stderr.String(), `(default "panestate")`) || strings.Contains(stderr.String(), `"chat"`) {
		t.Errorf("usage does not give the default app panestate:\n%s", stderr.String())
	}
	if stdout.Len() > 0 {
		t.Errorf("-h printed more than the usage:\n%s", stdout.String())
	}
}
