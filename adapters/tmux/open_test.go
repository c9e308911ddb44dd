package tmux

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/session"
)

func TestOpenInactive(t *testing.T) {
	fake := fakeDir(t)
	noexec := t.TempDir()
	if err := os.WriteFile(filepath.Join(noexec, Program), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(fake) // a tmux in the working directory is never used
	good := "TMUX=/tmp/tmux-1000/default,4242,0"
	tests := []struct {
		name string
		env  adapter.Env
		host session.Host
		want string // in the error
	}{
		{"no TMUX", adapter.Env{"TMUX_PANE=%1", "PATH=" + fake}, interactive, "TMUX is not set"},
		{"empty TMUX", adapter.Env{"TMUX=", "TMUX_PANE=%1", "PATH=" + fake}, interactive, "TMUX is not set"},
		{"TMUX without fields", adapter.Env{"TMUX=/tmp/s", "TMUX_PANE=%1", "PATH=" + fake}, interactive, "not \"<socket>,<pid>,<session>\""},
		{"TMUX with a bad pid", adapter.Env{"TMUX=/tmp/s,x,0", "TMUX_PANE=%1", "PATH=" + fake}, interactive, "server pid"},
		{"TMUX with a bad session", adapter.Env{"TMUX=/tmp/s,1,y", "TMUX_PANE=%1", "PATH=" + fake}, interactive, "session"},
		{"TMUX with a relative socket", adapter.Env{"TMUX=s,1,0", "TMUX_PANE=%1", "PATH=" + fake}, interactive, "not absolute"},
		{"no TMUX_PANE", adapter.Env{good, "PATH=" + fake}, interactive, "TMUX_PANE is not set"},
		{"TMUX_PANE not a pane id", adapter.Env{good, "TMUX_PANE=-t", "PATH=" + fake}, interactive, "not a pane id"},
		{"not interactive", adapter.Env{good, "TMUX_PANE=%1", "PATH=" + fake},
			session.Host{Root: true}, "host may not claim a pane"},
		{"subagent", adapter.Env{good, "TMUX_PANE=%1", "PATH=" + fake},
			session.Host{Interactive: true}, "host may not claim a pane"},
		{"no tmux on PATH", adapter.Env{good, "TMUX_PANE=%1", "PATH=" + t.TempDir()}, interactive, "no executable tmux"},
		{"tmux not executable", adapter.Env{good, "TMUX_PANE=%1", "PATH=" + noexec}, interactive, "no executable tmux"},
		{"only in the working directory", adapter.Env{good, "TMUX_PANE=%1", "PATH=.:"}, interactive, "no executable tmux"},
		{"no PATH", adapter.Env{good, "TMUX_PANE=%1"}, interactive, "no executable tmux"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &diags{}
			p := params(tt.env, "", d)
			p.Host = tt.host
			a, err := Driver{}.Open(t.Context(), p)
			if a != nil || !errors.Is(err, adapter.ErrInactive) {
				t.Fatalf("Open = %v, %v; want an error wrapping ErrInactive", a, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open error %q does not say %q", err, tt.want)
			}
			if cerr := (Driver{}).Check(p); cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("Check = %v; want Open's error %v", cerr, err)
			}
			if got := d.all(); len(got) != 0 {
				t.Errorf("inactive Open emitted diagnostics %v", got)
			}
		})
	}
}

func TestOpenActive(t *testing.T) {
	fake := fakeDir(t)
	env := adapter.Env{"TMUX=/tmp/my,dir/sock,4242,-1", "TMUX_PANE=%12", "PATH=relative:" + fake}
	p := params(env, "", nil)
	if err := (Driver{}).Check(p); err != nil {
		t.Fatalf("Check = %v; want nil", err)
	}
	a := openT(t, p)
	got := a.Details()
	wantDetails := map[string]string{
		"pane":       "%12",
		"socket":     "/tmp/my,dir/sock",
		"bin":        filepath.Join(fake, Program),
		"options":    "@panestate_state @panestate_message @panestate_agent",
		"agent":      "chat",
		"timeout":    "5s",
		"last_op":    "(none)",
		"last_state": "(none)",
		"owner":      "free",
		"owner_file": "(none)",
	}
	if diff := cmp.Diff(got, wantDetails); diff != "" {
		t.Errorf("Details (-got +want):\n%s", diff)
	}
}

// TestPreviewSaysWhatOpenDoes: the setup Preview shows before Attach is
// the one the opened adapter shows in its Details, plus the prefix a tmux
// format names; a setup Open would refuse has none.
func TestPreviewSaysWhatOpenDoes(t *testing.T) {
	env := adapter.Env{"TMUX=/tmp/s,1,0", "TMUX_PANE=%3", "PATH=" + fakeDir(t)}
	for _, settings := range []string{"", `{"prefix":"ps","timeout":250}`} {
		p := params(env, settings, nil)
		preview := (Driver{}).Preview(p)
		got := openT(t, p).Details()
		for _, k := range []string{"options", "agent", "timeout"} {
			if preview[k] == "" || preview[k] != got[k] {
				t.Errorf("settings %s: Preview %s = %q, the opened adapter's Details %q", settings, k, preview[k], got[k])
			}
		}
		if want := strings.Fields(preview["options"])[0]; want != "@"+preview["prefix"]+"_state" {
			t.Errorf("settings %s: Preview prefix %q does not name the options %q", settings, preview["prefix"], preview["options"])
		}
	}
	bad := params(env, `{"prefix":"@x"}`, nil)
	badApp := params(env, "", nil)
	badApp.App = "my chat"
	for _, p := range []adapter.Params{bad, badApp} {
		if got := (Driver{}).Preview(p); got != nil {
			t.Errorf("Preview of a setup Open refuses = %v, want nil", got)
		}
	}
}

func TestOpenSettings(t *testing.T) {
	fake := fakeDir(t)
	env := adapter.Env{"TMUX=/tmp/s,1,0", "TMUX_PANE=%0", "PATH=" + fake}
	tests := []struct {
		name     string
		settings string
		app      string
		wantErr  string // "" for success
		options  string
		timeout  string
		diag     string // a diagnostic detail expected
	}{
		{name: "defaults", settings: `{}`, options: "@panestate_state @panestate_message @panestate_agent", timeout: "5s"},
		{name: "custom prefix", settings: `{"prefix":"agent-1_x"}`, options: "@agent-1_x_state @agent-1_x_message @agent-1_x_agent", timeout: "5s"},
		{name: "timeout in ms", settings: `{"timeout":250}`, options: "@panestate_state @panestate_message @panestate_agent", timeout: "250ms"},
		{name: "timeout clamped", settings: `{"timeout":"2m"}`, options: "@panestate_state @panestate_message @panestate_agent", timeout: "1m0s",
			diag: "timeout 2m0s is above 1m0s; using 1m0s"},
		{name: "prefix with @", settings: `{"prefix":"@x"}`, wantErr: "must not start with '@'"},
		{name: "empty prefix", settings: `{"prefix":""}`, wantErr: "prefix \"\" must be"},
		{name: "prefix with a format character", settings: `{"prefix":"a}b"}`, wantErr: "must be 1-32"},
		{name: "prefix with an array index", settings: `{"prefix":"a[1]"}`, wantErr: "must be 1-32"},
		{name: "prefix with a comma", settings: `{"prefix":"a,b"}`, wantErr: "must be 1-32"},
		{name: "prefix too long", settings: `{"prefix":"` + strings.Repeat("p", 33) + `"}`, wantErr: "must be 1-32"},
		{name: "prefix not a string", settings: `{"prefix":3}`, wantErr: "tmux: settings"},
		{name: "bad timeout", settings: `{"timeout":"soon"}`, wantErr: "tmux: settings: timeout \"soon\" is not a duration"},
		{name: "app ending in the command separator", app: "chat;", wantErr: "agent label"},
		{name: "app with a style", app: "#[fg=red]", wantErr: "agent label"},
		{name: "no app", app: "", wantErr: "agent label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &diags{}
			p := params(env, tt.settings, d)
			if tt.app != "" || tt.wantErr == "agent label" {
				p.App = tt.app
			}
			a, err := Driver{}.open(t.Context(), p)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.Is(err, adapter.ErrInactive) {
					t.Fatalf("Open error = %v; want a plain error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer a.Close(t.Context())
			e := a.Details()
			if e["options"] != tt.options || e["timeout"] != tt.timeout {
				t.Errorf("options, timeout = %q, %q; want %q, %q", e["options"], e["timeout"], tt.options, tt.timeout)
			}
			var wantDiags []adapter.Diagnostic
			if tt.diag != "" {
				wantDiags = []adapter.Diagnostic{{Adapter: "tmux", Kind: adapter.KindInvalidValue, Detail: tt.diag}}
			}
			if diff := cmp.Diff(d.all(), wantDiags); diff != "" {
				t.Errorf("diagnostics (-got +want):\n%s", diff)
			}
		})
	}
}

func TestParseTmuxVar(t *testing.T) {
	tests := []struct {
		name, v, socket string
		ok              bool
	}{
		{"as tmux writes it", "/tmp/tmux-1000/default,1234,0", "/tmp/tmux-1000/default", true},
		{"a socket path with commas", "/tmp/a,b/c,1234,5", "/tmp/a,b/c", true},
		{"no session (-1)", "/tmp/s,1234,-1", "/tmp/s", true},
		{"pid zero", "/tmp/s,0,1", "", false},
		{"one field missing", "/tmp/s,1234", "", false},
		{"empty socket", ",1234,0", "", false},
		{"negative pid", "/tmp/s,-5,0", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			socket, err := parseTmuxVar(tt.v)
			if (err == nil) != tt.ok || socket != tt.socket {
				t.Errorf("parseTmuxVar(%q) = %q, %v; want %q, ok %v", tt.v, socket, err, tt.socket, tt.ok)
			}
		})
	}
}

func TestScrubEnvRemovesTmuxPaneOnly(t *testing.T) {
	got := Driver{}.ScrubEnv(adapter.Env{"TMUX=/tmp/s,1,0", "TMUX_PANE=%3", "tmux_pane=%4", "PATH=/bin", "TMUX_TMPDIR=/run"})
	want := adapter.Env{"TMUX=/tmp/s,1,0", "PATH=/bin", "TMUX_TMPDIR=/run"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("ScrubEnv (-got +want):\n%s", diff)
	}
	// The child of a scrubbed environment does not find a pane to claim.
	p := params(got, "", nil)
	if err := (Driver{}).Check(p); !errors.Is(err, adapter.ErrInactive) {
		t.Errorf("Check in a scrubbed environment = %v; want inactive", err)
	}
}

func TestRecognize(t *testing.T) {
	tests := []struct {
		name, stderr, code string
	}{
		{"no server", "no server running on /tmp/tmux-0/default\n", CodeServerNotRunning},
		{"socket missing", "error connecting to /tmp/x (No such file or directory)\n", CodeConnectFailed},
		{"pane gone, tmux 3.4+", "can't find pane: %9\n", CodePaneNotFound},
		{"pane gone, tmux 3.3", "no such pane: %9\n", CodePaneNotFound},
		{"server-access refused", "access not allowed\n", CodeAccessDenied},
		{"server died during the call", "server exited unexpectedly\n", CodeServerExited},
		{"connection lost", "lost server\n", CodeServerExited},
		{"client and server differ", "protocol version mismatch (client 8, server 7)\n", CodeVersionMismatch},
		{"a message not known", "invalid option: @x\n", ""},
		{"no output", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := recognize(nil, []byte(tt.stderr)); got != tt.code {
				t.Errorf("recognize(%q) = %q; want %q", tt.stderr, got, tt.code)
			}
		})
	}
}

func TestArgv(t *testing.T) {
	// The exact argv, as the fake tmux received it: one invocation per call,
	// the server and the pane named in every command.
	log := filepath.Join(t.TempDir(), "argv")
	env := adapter.Env{"TMUX=/tmp/s,1,0", "TMUX_PANE=%7", "PATH=" + fakeDir(t), fakeModeEnv + "=record", fakeLogEnv + "=" + log}
	a := openT(t, params(env, `{"prefix":"ps"}`, nil))
	for _, r := range []adapter.Report{blocked, working} {
		if err := a.Report(t.Context(), r); err != nil {
			t.Fatalf("Report: %v", err)
		}
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatalf("Release: %v", err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// The JSON option's time, which changes, is checked by jsonoption_test.go.
	got := strings.Split(regexp.MustCompile(`\\"updated\\":\\"[^\\]*\\"`).ReplaceAllString(strings.TrimSpace(string(b)), `\"updated\":\"T\"`), "\n")
	want := []string{
		`["-S","/tmp/s","set-option","-p","-t","%7","@ps_state","blocked",";","set-option","-p","-t","%7","@ps_message","Waiting for approval",";","set-option","-p","-t","%7","@ps_agent","chat",";","set-option","-p","-t","%7","@ps","{\"state\":\"blocked\",\"message\":\"Waiting for approval\",\"agent\":\"chat\",\"app\":\"chat\",\"session\":\"\",\"updated\":\"T\"}"]`,
		`["-S","/tmp/s","set-option","-p","-t","%7","@ps_state","working",";","set-option","-p","-t","%7","@ps_message","",";","set-option","-p","-t","%7","@ps_agent","chat",";","set-option","-p","-t","%7","@ps","{\"state\":\"working\",\"message\":\"\",\"agent\":\"chat\",\"app\":\"chat\",\"session\":\"\",\"updated\":\"T\"}"]`,
		`["-S","/tmp/s","set-option","-p","-u","-t","%7","@ps_state",";","set-option","-p","-u","-t","%7","@ps_message",";","set-option","-p","-u","-t","%7","@ps_agent",";","set-option","-p","-u","-t","%7","@ps"]`,
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("argv (-got +want):\n%s", diff)
	}
}

// TestCheckSettings proves Check finds, in a pane, the settings errors Open
// returns, naming the key, and accepts good sections.
func TestCheckSettings(t *testing.T) {
	env := adapter.Env{"TMUX=/tmp/s,1,0", "TMUX_PANE=%7", "PATH=" + fakeDir(t)}
	tests := []struct {
		name    string
		section string
		key     string // named by the error; "" = valid
	}{
		{name: "none", section: ``},
		{name: "good", section: `{"prefix":"agent-1","timeout":250}`},
		{name: "clamped timeout is valid", section: `{"timeout":"2m"}`},
		{name: "timeout not a duration", section: `{"timeout":"nope"}`, key: "timeout"},
		{name: "prefix with @", section: `{"prefix":"@x"}`, key: "prefix"},
		{name: "prefix not a string", section: `{"prefix":3}`, key: "prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Driver{}.Check(params(env, tt.section, nil))
			if tt.key == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.key) || errors.Is(err, adapter.ErrInactive) {
				t.Fatalf("Check = %v, want a plain error naming %q", err, tt.key)
			}
		})
	}
}

// TestDriverAgreesWithOpen checks, with adaptertest.RunDriver, that Check
// says what Open does, in a pane and outside one, with good and bad
// settings, and that an inactive Open starts nothing.
func TestDriverAgreesWithOpen(t *testing.T) {
	pane := adapter.Env{"TMUX=/tmp/s,1,0", "TMUX_PANE=%7", "PATH=" + fakeDir(t)}
	badApp := params(pane, "", nil)
	badApp.App = "my chat"
	adaptertest.RunDriver(t, Driver{}, map[string]adapter.Params{
		"in a pane":                  params(pane, "", nil),
		"in a pane, good settings":   params(pane, `{"prefix":"ps","timeout":250}`, nil),
		"in a pane, bad prefix":      params(pane, `{"prefix":"@ps"}`, nil),
		"in a pane, bad timeout":     params(pane, `{"timeout":"soon"}`, nil),
		"outside tmux":               params(adapter.Env{"PATH=" + fakeDir(t)}, "", nil),
		"outside tmux, bad settings": params(adapter.Env{"PATH=" + fakeDir(t)}, `{"timeout":"soon"}`, nil),
		"in a pane, bad app name":    badApp,
	})
}
