package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/hook"
)

func TestHookNeverHurtsTheAgent(t *testing.T) {
	payload, err := os.ReadFile(fixture("claude-code", "UserPromptSubmit"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		stdin   string
		inPane  bool
		wantErr string // on stderr
	}{
		{name: "outside every workspace", args: []string{"claude-code"}, stdin: string(payload)},
		{name: "an unknown agent", args: []string{"claude"}, stdin: string(payload), inPane: true, wantErr: "unknown agent"},
		{name: "no agent", args: nil, stdin: string(payload), inPane: true, wantErr: "takes one agent"},
		{name: "a payload that is not JSON", args: []string{"gemini"}, stdin: "SECRET-MARKER{", inPane: true, wantErr: "bad payload"},
		{name: "an ignored event", args: []string{"claude-code"}, stdin: `{"hook_event_name":"PreCompact"}`, inPane: true},
		{name: "a subagent's event", args: []string{"claude-code"}, stdin: `{"hook_event_name":"Stop","agent_id":"a1"}`, inPane: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := t.TempDir()
			env := []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + rt}
			if tt.inPane {
				env = append(env, "TMUX=/nonexistent/s,1,0", "TMUX_PANE=%1")
			}
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"hook"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr, env)
			if code != 0 {
				t.Errorf("exit status %d, want 0", code)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			if tt.wantErr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantErr)
			}
			if strings.Contains(stderr.String(), marker) {
				t.Errorf("stderr %q echoes the payload", stderr.String())
			}
			// Nothing was started: not even the runtime directory exists.
			if _, err := os.Stat(filepath.Join(rt, "panestate")); !os.IsNotExist(err) {
				t.Errorf("runtime directory made: %v", err)
			}
		})
	}
}

// panicReader panics on Read, as a bug anywhere on the hook's path would.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("hook bug: " + marker) }

// TestHookExitsZeroOnAPanic: a panic on the hook's path would exit 2, the
// status Gemini CLI reads as "block"; the hook exits 0 with a fixed line on
// stderr that holds nothing of the panic.
func TestHookExitsZeroOnAPanic(t *testing.T) {
	env := []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir(), "TMUX=/nonexistent/s,1,0", "TMUX_PANE=%1"}
	var stdout, stderr bytes.Buffer
	code := run([]string{"hook", "gemini"}, panicReader{}, &stdout, &stderr, env)
	if code != 0 || stdout.Len() > 0 {
		t.Errorf("exit %d, stdout %q; want 0 and nothing", code, stdout.String())
	}
	if got, want := stderr.String(), "panestate: hook: internal error, event dropped\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

func TestPaneVars(t *testing.T) {
	env := []string{"HOME=/h", "HERDR_PANE_ID=w1:p2", "TMUX_PANE=%3", "PATH=/bin", "HERDR_SOCKET_PATH=/s"}
	got := paneVars(env)
	want := []string{"HERDR_PANE_ID=w1:p2", "HERDR_SOCKET_PATH=/s", "TMUX_PANE=%3"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("(-got +want):\n%s", diff)
	}
	if got := paneVars([]string{"HOME=/h"}); got != nil {
		t.Errorf("outside: %q, want none", got)
	}
	if got := paneVars([]string{"HOME=/h", "TMUX=/tmp/tmux-0/default,1,0"}); got != nil {
		t.Errorf("TMUX without a pane: %q, want none", got)
	}
}

func TestPrintConfig(t *testing.T) {
	for _, agent := range hook.Agents {
		t.Run(string(agent), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run([]string{"hook", "--print-config", string(agent)}, nil, &stdout, &stderr, os.Environ()); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			want, err := hook.Config(agent, selfCommand(os.Environ()))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(stdout.String(), string(want)); diff != "" {
				t.Errorf("(-got +want):\n%s", diff)
			}
			if !strings.Contains(stderr.String(), hook.SettingsFile(agent)) {
				t.Errorf("stderr %q does not say where", stderr.String())
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"hook", "--print-config", "vim"}, nil, &stdout, &stderr, nil); code != 2 || stdout.Len() > 0 {
		t.Errorf("unknown agent: exit %d, stdout %q", code, stdout.String())
	}
}

// noRead fails the test if it is read: the commands a person runs with
// `panestate hook --flag` never wait on stdin.
type noRead struct{ t *testing.T }

func (r noRead) Read([]byte) (int, error) {
	r.t.Error("stdin read")
	return 0, io.EOF
}

// TestHookFlagsAreAPersonsCommand: `panestate hook` with a flag first is
// run by a person, not by an agent: a usage error exits 2 with the usage on
// stderr, and stdin is never read.
func TestHookFlagsAreAPersonsCommand(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // a prefix
		wantErr    string // in stderr
	}{
		{name: "print-config with no agent", args: []string{"--print-config"}, wantCode: 2, wantErr: "--print-config takes one agent"},
		{name: "print-config with two agents", args: []string{"--print-config", "codex", "gemini"}, wantCode: 2, wantErr: "--print-config takes one agent"},
		{name: "print-config with an unknown agent", args: []string{"--print-config", "vim"}, wantCode: 2, wantErr: "unknown agent"},
		{name: "print-config with an empty value", args: []string{"--print-config="}, wantCode: 2, wantErr: "unknown agent"},
		{name: "print-config=agent", args: []string{"--print-config=gemini"}, wantStdout: "{", wantErr: ".gemini/settings.json"},
		{name: "print-config with one dash", args: []string{"-print-config", "codex"}, wantStdout: "{", wantErr: ".codex/hooks.json"},
		{name: "an unknown flag", args: []string{"--dry-run", "codex"}, wantCode: 2, wantErr: "bad arguments"},
		{name: "help", args: []string{"--help"}, wantStdout: "usage:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"hook"}, tt.args...), noRead{t}, &stdout, &stderr, []string{"TMUX=/nonexistent/s,1,0", "TMUX_PANE=%1"})
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr.String())
			}
			if !strings.HasPrefix(stdout.String(), tt.wantStdout) || tt.wantStdout == "" && stdout.Len() > 0 {
				t.Errorf("stdout %q, want it to start with %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantErr)
			}
			if tt.wantCode == 2 && !strings.Contains(stderr.String(), "usage:") && !strings.Contains(tt.wantErr, "unknown agent") {
				t.Errorf("stderr %q does not show the usage", stderr.String())
			}
		})
	}
}

func TestInstallKeepsABackupAndIsIdempotent(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	const theirs = `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}`
	if err := os.WriteFile(path, []byte(theirs), 0o640); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	msg, err := install(hook.ClaudeCode, path, "panestate", now)
	if err != nil {
		t.Fatal(err)
	}
	backup := path + ".panestate-20261201T150000Z.bak"
	if !strings.Contains(msg, backup) {
		t.Errorf("message %q does not name the backup", msg)
	}
	if b, err := os.ReadFile(backup); err != nil || string(b) != theirs {
		t.Errorf("backup = %q, %v; want the file as it was", b, err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "say done") || !strings.Contains(string(got), "panestate hook claude-code") {
		t.Errorf("installed file:\n%s", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, %v; want 0640 kept", fi.Mode(), err)
	}
	msg, err = install(hook.ClaudeCode, path, "panestate", now.Add(time.Hour))
	if err != nil || !strings.Contains(msg, "nothing changed") {
		t.Errorf("second install: %q, %v", msg, err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(got) {
		t.Error("second install changed the file")
	}
	if files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.bak")); len(files) != 1 {
		t.Errorf("backups: %q, want one", files)
	}
}

// TestInstallWritesThroughALink: a settings file that is a link (dotfiles
// kept in a repository) stays a link; the file it points to gets the hooks,
// and its backup sits beside it.
func TestInstallWritesThroughALink(t *testing.T) {
	tests := []struct {
		name     string
		old      string // the linked file's content; "" for a file not made yet
		relative bool   // the link's target is relative to its directory
	}{
		{name: "to a file", old: `{"model":"opus"}`},
		{name: "relative", old: `{"model":"opus"}`, relative: true},
		{name: "to a file not made yet", relative: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			dotfiles := filepath.Join(home, "dotfiles")
			if err := os.MkdirAll(dotfiles, 0o700); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(dotfiles, "claude-settings.json")
			if tt.old != "" {
				if err := os.WriteFile(target, []byte(tt.old), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(home, ".claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			link := target
			if tt.relative {
				link = filepath.Join("..", "dotfiles", "claude-settings.json")
			}
			if err := os.Symlink(link, path); err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
			if _, err := install(hook.ClaudeCode, path, "panestate", now); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("settings file after install: %v, %v; want the link kept", fi.Mode(), err)
			}
			got, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			if tt.old != "" && !strings.Contains(string(got), `"opus"`) || !strings.Contains(string(got), "panestate hook claude-code") {
				t.Errorf("linked file after install:\n%s", got)
			}
			backup := target + ".panestate-20261201T150000Z.bak"
			if b, err := os.ReadFile(backup); tt.old != "" && (err != nil || string(b) != tt.old) {
				t.Errorf("backup beside the linked file = %q, %v", b, err)
			} else if tt.old == "" && !os.IsNotExist(err) {
				t.Errorf("backup of a file that was not there: %v", err)
			}
		})
	}
}

func TestInstallCommand(t *testing.T) {
	home := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"install", "codex"}, nil, &stdout, &stderr, []string{"HOME=" + home}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(stdout.String(), "config.toml: panestate's 8 hooks trusted") || strings.Contains(stdout.String(), "codex_hooks") {
		t.Errorf("stdout %q does not say that it trusted the hooks, or still asks for the legacy codex_hooks", stdout.String())
	}
	if b, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml")); err != nil || strings.Count(string(b), "trusted_hash = ") != 8 {
		t.Errorf("config.toml = %q, %v; want the trust of 8 hooks", b, err)
	}
	stdout.Reset()
	if code := run([]string{"install", "gemini"}, nil, &stdout, &stderr, []string{"HOME=" + home}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "folders you trust") {
		t.Errorf("stdout %q does not say that Gemini CLI runs hooks only in trusted folders", stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"install", "gemini"}, nil, &stdout, &stderr, []string{"HOME=relative"}); code != 1 {
		t.Errorf("no home: exit %d, want 1", code)
	}
}

func TestDoctorAsksAboutPanestate(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "USERPROFILE=" + home}
	tests := []struct {
		args    []string
		wantApp string
	}{
		{[]string{"doctor", "--json", "--project", home}, "panestate"},
		{[]string{"doctor", "--json", "--project", home, "--app=mychat"}, "mychat"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(tt.args, nil, &stdout, &stderr, env); code != 1 {
			t.Errorf("%q: exit %d, want 1 (nothing would report): %s", tt.args, code, stderr.String())
		}
		var rep struct {
			App string `json:"app"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep.App != tt.wantApp {
			t.Errorf("%q: app %q, %v; want %q", tt.args, rep.App, err, tt.wantApp)
		}
	}
}

func TestReadPayloadDoesNotWaitForTheEndOfStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := w.WriteString(`{"hook_event_name":"Stop","session_id":"s1"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	// w stays open, as an agent could leave it.
	got := readPayload(r)
	if want := `{"hook_event_name":"Stop","session_id":"s1"}`; string(got) != want {
		t.Errorf("payload %q, want %q", got, want)
	}
	if got := readPayload(strings.NewReader("not json at all")); string(got) != "not json at all" {
		t.Errorf("bad payload read as %q", got)
	}
}

// TestUsageNamesOnlyFlagsEventsTakes: each [-flag] the usage shows for
// events is one it accepts.
func TestUsageNamesOnlyFlagsEventsTakes(t *testing.T) {
	var line string
	for l := range strings.Lines(usage) {
		if strings.Contains(l, "panestate events") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("usage does not show events")
	}
	for w := range strings.FieldsSeq(line) {
		if !strings.HasPrefix(w, "[-") {
			continue
		}
		flag := strings.Trim(w, "[]")
		var stdout, stderr bytes.Buffer
		if code := run([]string{"events", flag, "-h"}, strings.NewReader(""), &stdout, &stderr, nil); code != 0 {
			t.Errorf("events %s: exit %d: %s", flag, code, stderr.String())
		}
	}
}

// markerReader yields n bytes of the marker, over and over.
type markerReader struct{ n int }

func (m *markerReader) Read(p []byte) (int, error) {
	if m.n <= 0 {
		return 0, io.EOF
	}
	k := min(len(p), m.n)
	for i := range k {
		p[i] = marker[i%len(marker)]
	}
	m.n -= k
	return k, nil
}

// TestHookRefusesAHugePayload: a 100 MB prompt is not held in memory to be
// parsed: the hook reads at most its bound, drops the event with the fixed
// line, and exits 0.
func TestHookRefusesAHugePayload(t *testing.T) {
	stdin := io.MultiReader(strings.NewReader(`{"hook_event_name":"UserPromptSubmit","session_id":"s1","prompt":"`),
		&markerReader{n: 100 << 20}, strings.NewReader(`"}`))
	// A runtime directory that cannot be made: were the event taken, it
	// would be dropped there, silently.
	env := []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=/nonexistent/run", "TMUX=/nonexistent/s,1,0", "TMUX_PANE=%1"}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"hook", "claude-code"}, stdin, &stdout, &stderr, env); code != 0 || stdout.Len() > 0 {
		t.Errorf("exit %d, stdout of %d bytes; want 0 and nothing", code, stdout.Len())
	}
	if got, want := stderr.String(), "panestate: hook: bad payload: not a JSON object with the expected fields\n"; got != want {
		t.Errorf("stderr %.200q, want %q", got, want)
	}
}

// TestInstallCodexTrustsItsHooksWhereCodexReadsThem: with CODEX_HOME set
// (a link, as Codex resolves it), install writes hooks.json there and
// records the trust in the config.toml beside it, under the resolved path,
// keeping the person's own lines and a backup; run again, it changes
// nothing.
func TestInstallCodexTrustsItsHooksWhereCodexReadsThem(t *testing.T) {
	home := t.TempDir()
	target := filepath.Join(home, "dotfiles", "codex")
	if err := os.MkdirAll(target, 0o700); err != nil {
		t.Fatal(err)
	}
	const mine = "model = \"o3\"\n\n[tui]\nx = 1\n"
	if err := os.WriteFile(filepath.Join(target, "config.toml"), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "codex-home")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	resolved, err := filepath.EvalSymlinks(target)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "CODEX_HOME=" + link}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"install", "codex"}, nil, &stdout, &stderr, env); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	config, err := os.ReadFile(filepath.Join(target, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(config), mine) || strings.Count(string(config), `[hooks.state."`+filepath.Join(resolved, "hooks.json")+":") != 8 {
		t.Errorf("config.toml:\n%s", config)
	}
	if backups, _ := filepath.Glob(filepath.Join(target, "config.toml.panestate-*.bak")); len(backups) != 1 {
		t.Errorf("backups %q, want one", backups)
	}
	stdout.Reset()
	if code := run([]string{"install", "codex"}, nil, &stdout, &stderr, env); code != 0 || !strings.Contains(stdout.String(), "already trusts panestate's 8 hooks") {
		t.Errorf("again: exit %d, %q", code, stdout.String())
	}
	if again, _ := os.ReadFile(filepath.Join(target, "config.toml")); string(again) != string(config) {
		t.Error("the second install changed config.toml")
	}
	stderr.Reset()
	if code := run([]string{"hook", "--print-config", "codex"}, nil, &stdout, &stderr, env); code != 0 || !strings.Contains(stderr.String(), "only once trusted") {
		t.Errorf("print-config: exit %d, stderr %q; want it to say the hooks need trust", code, stderr.String())
	}
}
