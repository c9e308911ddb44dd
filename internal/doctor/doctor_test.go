package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
	"github.com/panestate/panestate/registry"
)

func TestMain(m *testing.M) {
	herdrtest.Main() // the test binary is also the emulated herdr CLI
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}

// world is a private home and project, optionally inside an emulated Herdr
// pane.
type world struct {
	h       *herdrtest.Herdr // nil outside Herdr
	home    string
	project string
	env     []string
}

func newWorld(t *testing.T, inHerdr bool) *world {
	t.Helper()
	w := &world{home: t.TempDir(), project: t.TempDir()}
	w.env = []string{"HOME=" + w.home, "USERPROFILE=" + w.home, "XDG_STATE_HOME=" + filepath.Join(w.home, "state")}
	if inHerdr {
		w.h = herdrtest.StartT(t, herdrtest.Options{})
		w.env = append(w.env, w.h.Env()...)
	}
	return w
}

func (w *world) writeSettings(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (w *world) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), Config{}, append([]string{"--project", w.project}, args...), &out, &errb, w.env, false)
	return code, out.String(), errb.String()
}

func TestText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		inHerdr  bool
		env      []string // added to the world's environment (last wins)
		setup    func(t *testing.T, w *world)
		args     []string
		global   string // global settings, if any
		project  string // project settings, if any
		wantCode int
		want     []string
		wantNot  []string
	}{
		{
			name:     "outside Herdr",
			wantCode: exitNone,
			want: []string{
				"\nadapter herdr: ",
				"HERDR_ENV is not set",
				"\nverdict: this chat session would report nowhere (see why above)\n",
			},
			wantNot: []string{"herdr probe"},
		},
		{
			name:     "in a Herdr pane",
			inHerdr:  true,
			wantCode: exitReports,
			want: []string{
				"herdr probe",
				`  HERDR_ENV="1"` + "\n",
				`  HERDR_PANE_ID="w1:p1"` + "\n",
				`  HERDR_TAB_ID="(set)"` + "\n",
				"  binary: executable\n",
				"  herdr --version: herdr 0.8.2\n",
				", version 0.8.2, protocol 20\n",
				"  pane w1:p1: found\n",
				"\nverdict: this chat session would report to herdr\n",
			},
			wantNot: []string{"herdr: adapter inactive", "problem:", "missing:"},
		},
		{
			name:    "server stopped",
			inHerdr: true,
			setup: func(t *testing.T, w *world) {
				if err := w.h.StopServer(); err != nil {
					t.Fatal(err)
				}
			},
			wantCode: exitNone,
			want: []string{
				"  server: not_running at ",
				"  problem: no Herdr server is running at ",
				"\nverdict: this chat session would report nowhere: herdr would be opened, but the probe found: no Herdr server is running at ",
			},
			wantNot: []string{"would report to herdr", "pane w1:p1"},
		},
		{
			name:     "pane that does not exist",
			inHerdr:  true,
			env:      []string{"HERDR_PANE_ID=w9:p9"},
			wantCode: exitNone,
			want: []string{
				"  pane w9:p9: not found: pane_not_found\n",
				`  problem: HERDR_PANE_ID "w9:p9": the server does not know that pane (pane_not_found)` + "\n",
				`verdict: this chat session would report nowhere: herdr would be opened, but the probe found: HERDR_PANE_ID "w9:p9": the server does not know that pane (pane_not_found)` + "\n",
			},
			wantNot: []string{"would report to herdr"},
		},
		{
			name:     "only HERDR_ENV set",
			env:      []string{"HERDR_ENV=1"},
			wantCode: exitNone,
			want: []string{
				"herdr probe",
				"  missing: HERDR_BIN_PATH, HERDR_PANE_ID, HERDR_SOCKET_PATH\n",
				"  problem: missing HERDR_BIN_PATH, HERDR_PANE_ID, HERDR_SOCKET_PATH\n",
				"\nverdict: this chat session would report nowhere (see why above)\n",
			},
		},
		{
			name:     "print mode",
			inHerdr:  true,
			args:     []string{"--mode", "print"},
			wantCode: exitNone,
			want:     []string{"the host is not interactive (a print, JSON or RPC run, or no UI)"},
		},
		{
			name:     "subagent without UI",
			inHerdr:  true,
			args:     []string{"--role", "subagent", "--no-ui"},
			wantCode: exitNone,
			want:     []string{"the host is not interactive (a print, JSON or RPC run, or no UI); the host is not the root session (a subagent or a workflow stage)"},
		},
		{
			name:     "conflicting reporter loaded",
			inHerdr:  true,
			args:     []string{"--loaded-extension", "/x/herdr-atomic-reporter/index.ts"},
			wantCode: exitNone,
			want:     []string{"a conflicting reporter is loaded: /x/herdr-atomic-reporter/index.ts"},
		},
		{
			name:     "disabled by the trusted project",
			inHerdr:  true,
			args:     []string{"--trust-project"},
			project:  `{"herdr":{"enabled":false}}`,
			wantCode: exitNone,
			want:     []string{"disabled by project settings"},
		},
		{
			name:     "untrusted project ignored",
			inHerdr:  true,
			project:  `{"herdr":{"enabled":false}}`,
			wantCode: exitReports,
			want:     []string{"settings.json (untrusted", "\nverdict: this chat session would report to herdr\n"},
		},
		{
			name:     "disabled globally",
			global:   `{"herdr":{"enabled":false}}`,
			wantCode: exitNone,
			want:     []string{"settings.json (loaded)", "disabled by global settings", "HERDR_ENV is not set"},
		},
		{
			name:     "other app",
			inHerdr:  true,
			args:     []string{"--app", "other"},
			global:   `{"herdr":{"enabled":false}}`, // under ~/.chat: not other's
			wantCode: exitReports,
			want: []string{`doctor: app "other": `, filepath.Join(".other", "agent", "settings.json") + " (missing)",
				"\nverdict: this other session would report to herdr\n"},
		},
		{
			name:     "bad setting in a pane",
			inHerdr:  true,
			global:   `{"herdr":{"timeout":"nope"}}`,
			wantCode: exitNone,
			want: []string{
				"\nadapter herdr: open failed, enabled by default\n",
				`  why: it applies here, but would fail to open: herdr: settings: timeout "nope" is not a duration`,
				`verdict: this chat session would report nowhere: herdr: it applies here, but would fail to open: herdr: settings: timeout "nope" is not a duration`,
			},
			wantNot: []string{"would report to herdr", "adapter herdr: not attached"},
		},
		{
			name:     "bad setting of a disabled adapter",
			inHerdr:  true,
			global:   `{"herdr":{"enabled":false,"timeout":"nope"}}`,
			wantCode: exitNone,
			want: []string{
				"\nadapter herdr: disabled by global settings\n",
				"its settings would make it fail to open: herdr: settings: timeout",
			},
		},
		{
			name:     "good setting in a pane",
			inHerdr:  true,
			global:   `{"herdr":{"timeout":"2s"}}`,
			wantCode: exitReports,
			want:     []string{"\nverdict: this chat session would report to herdr\n"},
		},
		{
			name:     "probe off",
			inHerdr:  true,
			args:     []string{"--probe=false"},
			wantCode: exitReports,
			wantNot:  []string{"herdr probe"},
		},
		{
			name:     "probe outside Herdr",
			args:     []string{"--probe"},
			wantCode: exitNone,
			want:     []string{"no HERDR_* variable is set", "binary: HERDR_BIN_PATH is not set\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, tc.inHerdr)
			w.env = append(w.env, tc.env...)
			if tc.setup != nil {
				tc.setup(t, w)
			}
			if tc.global != "" {
				w.writeSettings(t, filepath.Join(w.home, ".chat", "agent"), tc.global)
			}
			if tc.project != "" {
				w.writeSettings(t, filepath.Join(w.project, ".chat"), tc.project)
			}
			code, stdout, stderr := w.run(t, tc.args...)
			if code != tc.wantCode || stderr != "" {
				t.Fatalf("run = %d, stderr %q; want %d, empty\n%s", code, stderr, tc.wantCode, stdout)
			}
			for _, s := range tc.want {
				if !strings.Contains(stdout, s) {
					t.Errorf("output does not contain %q:\n%s", s, stdout)
				}
			}
			for _, s := range tc.wantNot {
				if strings.Contains(stdout, s) {
					t.Errorf("output contains %q:\n%s", s, stdout)
				}
			}
			if w.h != nil {
				w.checkReadOnly(t)
			}
		})
	}
}

// TestFirstLine checks that the first line names the app and the settings
// files read, so that a plain run says it checked ~/.chat, and points at
// --app only when it was not given.
func TestFirstLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		app  string
		hint string // the end of the line
	}{
		{"default app", nil, "chat", "; pass --app to check another app"},
		{"--app given", []string{"--app", "mychat"}, "mychat", ""},
		{"--app given as the default", []string{"--app", "chat"}, "chat", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, false)
			_, stdout, _ := w.run(t, tc.args...)
			first, _, _ := strings.Cut(stdout, "\n")
			want := fmt.Sprintf("doctor: app %q: settings from %s (missing) and %s (untrusted)%s",
				tc.app, filepath.Join(w.home, "."+tc.app, "agent", "settings.json"), filepath.Join(w.project, "."+tc.app, "settings.json"), tc.hint)
			if first != want {
				t.Errorf("first line:\n%s\nwant:\n%s", first, want)
			}
		})
	}
}

// TestQuiet checks that -q prints nothing and answers with the exit
// status alone.
func TestQuiet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		inHerdr  bool
		wantCode int
	}{
		{"in a pane", true, exitReports},
		{"outside Herdr", false, exitNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, tc.inHerdr)
			code, stdout, stderr := w.run(t, "-q")
			if code != tc.wantCode || stdout != "" || stderr != "" {
				t.Errorf("run -q = %d, stdout %q, stderr %q; want %d, nothing printed", code, stdout, stderr, tc.wantCode)
			}
		})
	}
}

// checkReadOnly checks that the doctor ran nothing but read-only commands.
func (w *world) checkReadOnly(t *testing.T) {
	t.Helper()
	calls, err := w.h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		switch c.Transport {
		case herdrtest.TransportSocket:
			if c.Method != "ping" {
				t.Errorf("the doctor sent %s %s on the socket", c.Method, c.Params)
			}
		default:
			if c.Command != "--version" && c.Command != "status" && c.Command != "pane get" {
				t.Errorf("the doctor ran herdr %q", c.Args)
			}
		}
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		stopServer   bool
		wantCode     int
		wantReport   []string
		wantProblems int
	}{
		{name: "in a pane", wantCode: exitReports, wantReport: []string{"herdr"}},
		{name: "server stopped", stopServer: true, wantCode: exitNone, wantReport: []string{}, wantProblems: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, true)
			if tc.stopServer {
				if err := w.h.StopServer(); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := w.run(t, "--json")
			if code != tc.wantCode || stderr != "" {
				t.Fatalf("run = %d, stderr %q; want %d, empty", code, stderr, tc.wantCode)
			}
			var got report
			dec := json.NewDecoder(strings.NewReader(stdout))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("output is not the expected JSON: %v\n%s", err, stdout)
			}
			e := got.Explanation
			if got.App != "chat" || e.App != "chat" || e.Attached || !e.Host.Interactive || !e.Host.Root || len(e.Files) != 2 {
				t.Errorf("app %q, explanation: app %q, attached %v, host %+v, %d files; want chat, chat, false, interactive root, 2",
					got.App, e.App, e.Attached, e.Host, len(e.Files))
			}
			var herdr *registry.AdapterStatus
			for i := range e.Adapters {
				if e.Adapters[i].Name == "herdr" {
					herdr = &e.Adapters[i]
				}
			}
			if herdr == nil {
				t.Fatalf("no herdr adapter in %+v", e.Adapters)
			}
			// The registry would open herdr either way: only the probe
			// tells the two apart.
			if !wouldOpen(*herdr) {
				t.Errorf("herdr %+v: want it enabled and applicable", *herdr)
			}
			if diff := cmp.Diff(got.WouldReport, tc.wantReport); diff != "" {
				t.Errorf("would_report (-got +want):\n%s", diff)
			}
			if !strings.Contains(got.Verdict, "this chat session would report") {
				t.Errorf("verdict %q", got.Verdict)
			}
			p := got.Probe
			if p == nil {
				t.Fatal("no probe")
			}
			if p.Version != "herdr 0.8.2" || p.Variables["HERDR_PANE_ID"] != w.h.Pane || p.BinProblem != "" || len(p.Problems) != tc.wantProblems {
				t.Errorf("probe = %+v; want version herdr 0.8.2, pane %s, no binary problem, %d problems", p, w.h.Pane, tc.wantProblems)
			}
			if p.Server == nil || p.Server.Running == tc.stopServer || p.PaneFound == tc.stopServer {
				t.Errorf("probe server %+v, pane found %v; want running and found %v", p.Server, p.PaneFound, !tc.stopServer)
			}
			w.checkReadOnly(t)
		})
	}
}

func TestProbeProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, w *world)
		want    []string
		wantNot []string
	}{
		{
			name: "binary hangs",
			setup: func(t *testing.T, w *world) {
				if err := w.h.SetFault(herdrtest.Fault{Hang: true}); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{
				"herdr --version: failed: herdr --version: signal: killed\n",
				"herdr status --json: failed: herdr status --json: signal: killed\n",
				"problem: herdr status failed: ",
			},
		},
		{
			name: "server protocol differs",
			setup: func(t *testing.T, w *world) {
				if err := w.h.SetFault(herdrtest.Fault{ProtocolMismatch: 19}); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{
				"NOT compatible with the CLI",
				"problem: the Herdr server (protocol 19) is not compatible with its CLI: restart the server",
				// pane get fails too, which says nothing of the pane.
				`  herdr pane get w1:p1: failed: protocol_mismatch` + "\n",
				`  problem: herdr pane get "w1:p1" failed: protocol_mismatch` + "\n",
			},
			wantNot: []string{"does not know that pane", "not found"},
		},
		{
			name: "binary not executable",
			setup: func(t *testing.T, w *world) {
				if runtime.GOOS == "windows" {
					t.Skip("no executable bit on Windows")
				}
				bin := filepath.Join(t.TempDir(), "herdr")
				if err := os.WriteFile(bin, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				w.env = append(w.env, "HERDR_BIN_PATH="+bin)
			},
			want: []string{string(filepath.Separator) + "herdr is not executable\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, true)
			tc.setup(t, w)
			code, stdout, stderr := w.run(t)
			if code != exitNone || stderr != "" {
				t.Fatalf("run = %d, stderr %q; want %d, empty\n%s", code, stderr, exitNone, stdout)
			}
			for _, s := range tc.want {
				if !strings.Contains(stdout, s) {
					t.Errorf("output does not contain %q:\n%s", s, stdout)
				}
			}
			for _, s := range tc.wantNot {
				if strings.Contains(stdout, s) {
					t.Errorf("output contains %q:\n%s", s, stdout)
				}
			}
			if !strings.Contains(stdout, "verdict: this chat session would report nowhere") {
				t.Errorf("verdict is not nowhere:\n%s", stdout)
			}
		})
	}
}

// TestRelativeBinaryIsNotRun checks that the probe never runs a relative
// HERDR_BIN_PATH: exec would look a bare name up in PATH, and a path with
// a directory in the working directory, which may be an untrusted
// repository. Here both lead to a program that leaves a mark.
func TestRelativeBinaryIsNotRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the planted program is a shell script")
	}
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	script := "#!/bin/sh\necho ran >> '" + mark + "'\necho 'herdr 0.8.2'\n"
	if err := os.WriteFile(filepath.Join(dir, "herdr"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	for _, bin := range []string{"herdr", "." + string(filepath.Separator) + "herdr"} {
		t.Run(bin, func(t *testing.T) {
			os.Remove(mark) // each case starts unmarked
			w := newWorld(t, false)
			w.env = append(w.env, "HERDR_ENV=1", "HERDR_BIN_PATH="+bin, "HERDR_PANE_ID=w1:p1",
				"HERDR_SOCKET_PATH="+filepath.Join(dir, "herdr.sock"))
			code, stdout, stderr := w.run(t)
			if code != exitNone || stderr != "" {
				t.Errorf("run = %d, stderr %q; want %d, empty\n%s", code, stderr, exitNone, stdout)
			}
			want := fmt.Sprintf("  problem: HERDR_BIN_PATH: %q is not an absolute path (Herdr always sets one); not run\n", bin)
			if !strings.Contains(stdout, want) {
				t.Errorf("output does not contain %q:\n%s", want, stdout)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Errorf("the probe ran the relative HERDR_BIN_PATH %q", bin)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	w := newWorld(t, false)
	for _, tc := range []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{name: "help", args: []string{"-h"}, wantCode: 0, wantStderr: "Usage of doctor:"},
		{name: "unknown flag", args: []string{"--verbose"}, wantCode: 2, wantStderr: "flag provided but not defined: -verbose"},
		{name: "argument", args: []string{"herdr"}, wantCode: 2, wantStderr: `doctor: unexpected argument "herdr"`},
		{name: "bad role", args: []string{"--role", "boss"}, wantCode: 2, wantStderr: `unknown role "boss"`},
		{name: "bad app", args: []string{"--app", ""}, wantCode: 2, wantStderr: `Options.App ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := w.run(t, tc.args...)
			if code != tc.wantCode || !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("run = %d, stderr %q; want %d, containing %q", code, stderr, tc.wantCode, tc.wantStderr)
			}
		})
	}
}

// TestIsTerminal checks the default of --terminal: a file is not a
// terminal; a character device (here the null device) counts as one.
func TestIsTerminal(t *testing.T) {
	t.Parallel()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if IsTerminal(file) {
		t.Error("IsTerminal(regular file) = true")
	}
	if runtime.GOOS == "windows" {
		return // NUL is not a character device there
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if !IsTerminal(null) {
		t.Errorf("IsTerminal(%s) = false; want a character device to count", os.DevNull)
	}
}

// tmuxServer starts a private tmux server on a socket in a temporary
// directory, with one pane running sleep, and kills it (by its socket)
// when the test ends. It returns the socket and the pane id.
func tmuxServer(t *testing.T) (socket, pane string) {
	t.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed; CI installs it (.ci/run)")
		}
		t.Skip("tmux is not installed")
	}
	socket = filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-S", socket, "-f", os.DevNull}, args...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TERM=xterm"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tmux("new-session", "-d", "-x", "80", "-y", "24", "sleep 600")
	t.Cleanup(func() {
		cmd := exec.Command(bin, "-S", socket, "kill-server")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		cmd.Run() // already gone when a test killed it
	})
	return socket, tmux("list-panes", "-F", "#{pane_id}")
}

func TestTmuxProbe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		settings string                                            // the global settings file, if any
		formats  []string                                          // a tmux command run on the server first, if any
		setup    func(t *testing.T, w *world, socket, pane string) // changes the world after the server started
		want     []string
	}{
		{
			name: "in a pane where no format shows the state",
			want: []string{
				"tmux probe (read-only: list-panes, show-options):\n", ": found\n",
				"  no status or border format tmux draws shows @panestate_*: the pane's state is set, but nothing shows it.",
				"\n    " + tmuxConfLines[0] + "\n    " + tmuxConfLines[1] + "\n",
				"verdict: this chat session would report to tmux, but no tmux status or border format shows @panestate_*, so nothing shows it (see the tmux probe)\n",
			},
		},
		{
			name:    "status-right shows the state",
			formats: []string{"set", "-g", "status-right", "#{@panestate_state} %H:%M"},
			want:    []string{"  formats showing @panestate_*: status-right\n", "verdict: this chat session would report to tmux\n"},
		},
		{
			name: "a session's own window format shows the state",
			formats: []string{"set", "-w", "window-status-current-format", "#I #{@panestate_state}", ";",
				"set", "status-format[1]", "#{P:#{@panestate_state}}", ";", "set", "status", "2"},
			want: []string{"  formats showing @panestate_*: status-format[1], window-status-current-format\n", "verdict: this chat session would report to tmux\n"},
		},
		{
			name:    "status line off",
			formats: []string{"set", "-g", "status-right", "#{@panestate_state}", ";", "set", "-g", "status", "off"},
			want:    []string{"  no status or border format tmux draws shows @panestate_*", "would report to tmux, but no tmux status"},
		},
		{
			name:    "border format without a border",
			formats: []string{"set", "-g", "pane-border-format", "#{@panestate_state}"},
			want:    []string{"  no status or border format tmux draws shows @panestate_*", "would report to tmux, but no tmux status"},
		},
		{
			name:    "border",
			formats: []string{"set", "-g", "pane-border-format", "#{@panestate_state}", ";", "set", "-g", "pane-border-status", "top"},
			want:    []string{"  formats showing @panestate_*: pane-border-format\n", "verdict: this chat session would report to tmux\n"},
		},
		{
			name:     "another prefix",
			settings: `{"tmux": {"prefix": "mine"}}`,
			formats:  []string{"set", "-g", "status-left", "#{@panestate_state}"},
			want: []string{
				"  no status or border format tmux draws shows @mine_*",
				"\n    set -g window-status-format '#{?#{==:#{@mine_state},blocked},",
				"would report to tmux, but no tmux status or border format shows @mine_*",
			},
		},
		{
			name:     "another prefix shown",
			settings: `{"tmux": {"prefix": "mine"}}`,
			formats:  []string{"set", "-g", "status-left", "#{@mine_state}"},
			want:     []string{"  formats showing @mine_*: status-left\n", "verdict: this chat session would report to tmux\n"},
		},
		{
			name: "pane that does not exist",
			setup: func(t *testing.T, w *world, socket, pane string) {
				w.env = append(w.env, "TMUX_PANE=%99")
			},
			want: []string{`  problem: TMUX_PANE "%99": the tmux server has no such pane` + "\n"},
		},
		{
			name: "server stopped",
			setup: func(t *testing.T, w *world, socket, pane string) {
				if out, err := exec.Command("tmux", "-S", socket, "kill-server").CombinedOutput(); err != nil {
					t.Fatalf("kill-server: %v\n%s", err, out)
				}
			},
			want: []string{"  problem: no tmux server is running at "},
		},
		{
			name: "no tmux in PATH",
			setup: func(t *testing.T, w *world, socket, pane string) {
				w.env = append(w.env, "PATH="+t.TempDir())
			},
			want: []string{"  problem: no tmux executable in PATH\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			socket, pane := tmuxServer(t)
			w := newWorld(t, false)
			w.env = append(w.env, "PATH="+os.Getenv("PATH"), "TMUX="+socket+",1,0", "TMUX_PANE="+pane)
			if tc.settings != "" {
				w.writeSettings(t, filepath.Join(w.home, ".chat", "agent"), tc.settings)
			}
			if tc.formats != nil {
				cmd := exec.Command("tmux", append([]string{"-S", socket}, tc.formats...)...)
				cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("tmux %q: %v\n%s", tc.formats, err, out)
				}
			}
			if tc.setup != nil {
				tc.setup(t, w, socket, pane)
			}
			code, stdout, stderr := w.run(t, "--json=false")
			if stderr != "" {
				t.Fatalf("stderr %q", stderr)
			}
			// The verdict follows the probe.
			if tc.setup != nil && (code != exitNone || strings.Contains(stdout, "would report to tmux")) {
				t.Errorf("run = %d; want %d and no report to tmux:\n%s", code, exitNone, stdout)
			}
			// Whether a format shows the state or not, tmux takes reports.
			if tc.setup == nil && (code != exitReports || !strings.Contains(stdout, "verdict: this chat session would report to tmux")) {
				t.Errorf("run = %d; want %d, reporting to tmux:\n%s", code, exitReports, stdout)
			}
			for _, s := range tc.want {
				if !strings.Contains(stdout, s) {
					t.Errorf("output does not contain %q:\n%s", s, stdout)
				}
			}
			if strings.Contains(stdout, "herdr probe") {
				t.Errorf("a herdr probe outside Herdr:\n%s", stdout)
			}
		})
	}
}

// TestTransport checks that the doctor says which transport the reporter
// would use and what the server answered to its ping, against the emulated
// Herdr at both versions, with each transport setting.
func TestTransport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		version   string
		setting   string // herdr.transport in the global file; "" for none
		fault     herdrtest.Fault
		stop      bool // stop the server
		wantCode  int
		want      []string
		wantProbe herdrProbe // the JSON fields Ping, Transport, TransportUsed
	}{
		{
			name: "auto at 0.8.2", version: herdrtest.Version082, wantCode: exitReports,
			want: []string{
				"  ping: Herdr 0.8.2, protocol 20\n",
				"  transport: auto, so the reporter would use socket: protocol 20 is one it speaks\n",
			},
			wantProbe: herdrProbe{Ping: &serverPing{Version: "0.8.2", Protocol: 20}, Transport: "auto", TransportUsed: "socket"},
		},
		{
			name: "auto at 0.9.3", version: herdrtest.Version093, wantCode: exitReports,
			want: []string{
				"  ping: Herdr 0.9.3, protocol 22\n",
				"  transport: auto, so the reporter would use socket: protocol 22 is one it speaks\n",
			},
			wantProbe: herdrProbe{Ping: &serverPing{Version: "0.9.3", Protocol: 22}, Transport: "auto", TransportUsed: "socket"},
		},
		{
			name: "cli at 0.9.3", version: herdrtest.Version093, setting: "cli", wantCode: exitReports,
			want: []string{
				"  ping: Herdr 0.9.3, protocol 22\n",
				"  transport: cli, so the reporter would use cli: the setting; the server's answer does not change it\n",
			},
			wantProbe: herdrProbe{Ping: &serverPing{Version: "0.9.3", Protocol: 22}, Transport: "cli", TransportUsed: "cli"},
		},
		{
			name: "auto and an unknown protocol", version: herdrtest.Version082, fault: herdrtest.Fault{ProtocolMismatch: 19}, wantCode: exitNone,
			want: []string{
				"  ping: Herdr 0.8.2, protocol 19\n",
				"  transport: auto, so the reporter would use cli: protocol 19 is not one it speaks (20 or 22)\n",
			},
			wantProbe: herdrProbe{Ping: &serverPing{Version: "0.8.2", Protocol: 19}, Transport: "auto", TransportUsed: "cli"},
		},
		{
			name: "socket and an unknown protocol", version: herdrtest.Version093, setting: "socket", fault: herdrtest.Fault{ProtocolMismatch: 23}, wantCode: exitNone,
			want: []string{
				"  transport: socket, so the reporter would use nothing: protocol 23 is not one it speaks (20 or 22)\n",
				"  problem: transport socket: protocol 23 is not one it speaks (20 or 22): every report would fail\n",
			},
			wantProbe: herdrProbe{Ping: &serverPing{Version: "0.9.3", Protocol: 23}, Transport: "socket", TransportUsed: "none"},
		},
		{
			name: "socket and no server", version: herdrtest.Version082, setting: "socket", stop: true, wantCode: exitNone,
			want: []string{
				"  ping: failed: cannot connect: ",
				"  transport: socket, so the reporter would use nothing: the ping failed (cannot connect: ",
				"  problem: transport socket: the ping failed (cannot connect: ",
			},
		},
		{
			// The route comes from the herdr adapter's details in the
			// explanation: a setting that keeps it from opening leaves
			// none, and the explanation says why.
			name: "an invalid setting", version: herdrtest.Version093, setting: "pigeon", wantCode: exitNone,
			want: []string{
				"  ping: Herdr 0.9.3, protocol 22\n",
				"  transport: (unknown), so the reporter would use nothing: the explanation shows no route for the herdr adapter (see why above)\n",
				`herdr: settings: transport "pigeon" is not auto, socket or cli`,
			},
		},
		{
			name: "auto and no server", version: herdrtest.Version082, stop: true, wantCode: exitNone,
			want: []string{
				"  ping: failed: cannot connect: ",
				"  transport: auto, so the reporter would use cli: the ping failed (cannot connect: ",
				"  problem: no Herdr server is running at ",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := &world{home: t.TempDir(), project: t.TempDir()}
			w.h = herdrtest.StartT(t, herdrtest.Options{Version: tc.version})
			w.env = append(w.h.PaneEnv(w.home), "USERPROFILE="+w.home)
			if tc.setting != "" {
				w.writeSettings(t, filepath.Join(w.home, ".chat", "agent"), fmt.Sprintf(`{"herdr": {"transport": %q}}`, tc.setting))
			}
			if err := w.h.SetFault(tc.fault); err != nil {
				t.Fatal(err)
			}
			if tc.stop {
				if err := w.h.StopServer(); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := w.run(t)
			if code != tc.wantCode || stderr != "" {
				t.Fatalf("run = %d, stderr %q; want %d, empty\n%s", code, stderr, tc.wantCode, stdout)
			}
			for _, s := range tc.want {
				if !strings.Contains(stdout, s) {
					t.Errorf("output does not contain %q:\n%s", s, stdout)
				}
			}
			if tc.wantProbe.Transport != "" {
				code, stdout, _ = w.run(t, "--json")
				if code != tc.wantCode {
					t.Fatalf("run --json = %d, want %d", code, tc.wantCode)
				}
				var got struct {
					Probe herdrProbe `json:"herdr_probe"`
				}
				if err := json.Unmarshal([]byte(stdout), &got); err != nil {
					t.Fatal(err)
				}
				p := got.Probe
				if diff := cmp.Diff(herdrProbe{Ping: p.Ping, Transport: p.Transport, TransportUsed: p.TransportUsed}, tc.wantProbe); diff != "" {
					t.Errorf("herdr_probe ping and transport (-got +want):\n%s", diff)
				}
			}
			if !tc.stop {
				w.checkReadOnly(t)
			}
		})
	}
}

func TestParsePong(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       serverPing
	}{
		{name: "pong", line: `{"id":"x","result":{"type":"pong","version":"0.9.3","protocol":22,"capabilities":{}}}`,
			want: serverPing{Version: "0.9.3", Protocol: 22}},
		{name: "error answer", line: `{"id":"","error":{"code":"invalid_request","message":"no"}}`,
			want: serverPing{Error: "error answer invalid_request"}},
		{name: "not json, never quoted", line: "\xff secret\n", want: serverPing{Error: "not a JSON answer (9 bytes)"}},
		{name: "another result", line: `{"id":"x","result":{"type":"pane_info"}}`, want: serverPing{Error: "no pong in the answer"}},
		{name: "pong without protocol", line: `{"id":"x","result":{"type":"pong","version":"0.9.3"}}`, want: serverPing{Error: "no pong in the answer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(parsePong([]byte(tc.line)), tc.want); diff != "" {
				t.Errorf("parsePong (-got +want):\n%s", diff)
			}
		})
	}
}

// The lines the doctor suggests for tmux.conf are docs/tmux.md's, which
// the tmux adapter's tests source into a real server.
func TestTmuxConfLinesAreTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/tmux.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range tmuxConfLines {
		if !strings.Contains(string(doc), "\n"+line+"\n") {
			t.Errorf("docs/tmux.md has no line %s", line)
		}
	}
}

func TestReadFormats(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      []string
	}{
		{name: "none", out: "status on\nstatus-right* \"%H:%M\"\n"},
		{name: "status-right", out: "status on\nstatus-right \"#{@panestate_state}\"\n", want: []string{"status-right"}},
		{name: "status off", out: "status off\nstatus-right \"#{@panestate_state}\"\n"},
		{name: "status line of two rows", out: "status 2\nstatus-format[1] \"#{@panestate_state}\"\n", want: []string{"status-format[1]"}},
		{name: "border off by default", out: "pane-border-format \"#{@panestate_state}\"\n"},
		{name: "border on", out: "pane-border-status bottom\npane-border-format* \"#{@panestate_state}\"\n", want: []string{"pane-border-format"}},
		{name: "another option", out: "@mine \"#{@panestate_state}\"\nset-titles-string \"#{@panestate_state}\"\n"},
		{name: "another prefix", out: "status-left \"#{@panestate2_state}\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(readFormats(tc.out, "panestate"), tc.want); diff != "" {
				t.Errorf("readFormats (-got +want):\n%s", diff)
			}
		})
	}
}
