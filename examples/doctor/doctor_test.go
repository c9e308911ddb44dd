package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/settings"
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
	code = run(t.Context(), append([]string{"--project", w.project}, args...), &out, &errb, w.env)
	return code, out.String(), errb.String()
}

func TestText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		inHerdr bool
		args    []string
		global  string // global settings, if any
		project string // project settings, if any
		want    []string
		wantNot []string
	}{
		{
			name: "outside Herdr",
			want: []string{
				"app chat, reporting not attached\n",
				"host: mode=tui ui=true role=root\n",
				"adapter herdr: inactive, enabled by default\n",
				"HERDR_ENV is not set",
				"\nverdict: this chat session would report nowhere (see why above)\n",
			},
			wantNot: []string{"herdr probe"},
		},
		{
			name:    "in a Herdr pane",
			inHerdr: true,
			want: []string{
				"adapter herdr: not attached, enabled by default\n",
				"\nverdict: this chat session would report to herdr\n",
				"herdr probe",
				`  HERDR_ENV="1"` + "\n",
				`  HERDR_PANE_ID="w1:p1"` + "\n",
				`  HERDR_TAB_ID="(set)"` + "\n",
				"  binary: executable\n",
				"  herdr --version: herdr 0.8.2\n",
				`  herdr status --json: {"client":{"version":"0.8.2"`,
			},
			wantNot: []string{"herdr: adapter inactive"},
		},
		{
			name:    "print mode",
			inHerdr: true,
			args:    []string{"--mode", "print"},
			want:    []string{"adapter herdr: inactive, enabled by default\n", "mode is print, not tui"},
		},
		{
			name:    "subagent without UI",
			inHerdr: true,
			args:    []string{"--role", "subagent", "--no-ui"},
			want:    []string{"adapter herdr: inactive", "the host has no UI; role is subagent, not root"},
		},
		{
			name:    "conflicting reporter loaded",
			inHerdr: true,
			args:    []string{"--loaded-extension", "/x/herdr-atomic-reporter/index.ts"},
			want:    []string{"adapter herdr: inactive", "a conflicting reporter is loaded: /x/herdr-atomic-reporter/index.ts"},
		},
		{
			name:    "disabled by the trusted project",
			inHerdr: true,
			args:    []string{"--trust-project"},
			project: `{"herdr":{"enabled":false}}`,
			want:    []string{"adapter herdr: disabled by project settings\n", "why: disabled by project settings"},
		},
		{
			name:    "untrusted project ignored",
			inHerdr: true,
			project: `{"herdr":{"enabled":false}}`,
			want:    []string{"settings.json (untrusted: ", "adapter herdr: not attached, enabled by default\n"},
		},
		{
			name:   "disabled globally",
			global: `{"herdr":{"enabled":false}}`,
			want: []string{"settings.json (loaded)", "adapter herdr: disabled by global settings\n",
				"it would not apply here anyway: herdr: adapter inactive: HERDR_ENV is not set"},
		},
		{
			name:    "other app",
			inHerdr: true,
			args:    []string{"--app", "other"},
			global:  `{"herdr":{"enabled":false}}`, // under ~/.chat: not other's
			want:    []string{"app other,", filepath.Join(".other", "agent", "settings.json") + " (missing)", "adapter herdr: not attached, enabled by default\n"},
		},
		{
			name:    "probe off",
			inHerdr: true,
			args:    []string{"--probe=false"},
			wantNot: []string{"herdr probe"},
		},
		{
			name: "probe outside Herdr",
			args: []string{"--probe"},
			want: []string{"no HERDR_* variable is set", "binary: HERDR_BIN_PATH is not set\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, tc.inHerdr)
			if tc.global != "" {
				w.writeSettings(t, filepath.Join(w.home, ".chat", "agent"), tc.global)
			}
			if tc.project != "" {
				w.writeSettings(t, filepath.Join(w.project, ".chat"), tc.project)
			}
			code, stdout, stderr := w.run(t, tc.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("run = %d, stderr %q; want 0, empty", code, stderr)
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

// checkReadOnly checks that the doctor ran nothing but read-only commands.
func (w *world) checkReadOnly(t *testing.T) {
	t.Helper()
	calls, err := w.h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if c.Command != "--version" && c.Command != "status" {
			t.Errorf("the doctor ran herdr %q", c.Args)
		}
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	code, stdout, stderr := w.run(t, "--json")
	if code != 0 || stderr != "" {
		t.Fatalf("run = %d, stderr %q; want 0, empty", code, stderr)
	}
	var got struct {
		Explanation registry.Explanation `json:"explanation"`
		WouldReport []string             `json:"would_report"`
		Probe       herdrProbe           `json:"herdr_probe"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("output is not the expected JSON: %v\n%s", err, stdout)
	}
	e := got.Explanation
	if e.App != "chat" || e.Attached || e.Host.Mode != "tui" || len(e.Files) != 2 {
		t.Errorf("explanation: app %q, attached %v, mode %q, %d files; want chat, false, tui, 2",
			e.App, e.Attached, e.Host.Mode, len(e.Files))
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
	if diff := cmp.Diff([]any{herdr.Enabled, herdr.EnabledBy, herdr.Lifecycle, herdr.Why}, []any{true, settings.LayerDefault, registry.LifecycleNotAttached, "it applies here and runs when reporting is attached"}); diff != "" {
		t.Errorf("herdr (enabled, by, state, why) (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(got.WouldReport, []string{"herdr"}); diff != "" {
		t.Errorf("would_report (-got +want):\n%s", diff)
	}
	if got.Probe.Version != "herdr 0.8.2" || got.Probe.Variables["HERDR_PANE_ID"] != w.h.Pane || got.Probe.BinProblem != "" {
		t.Errorf("probe = %+v; want version herdr 0.8.2, pane %s, no binary problem", got.Probe, w.h.Pane)
	}
	var status struct {
		Client struct{ Version string } `json:"client"`
		Server struct{ Running bool }   `json:"server"`
	}
	if err := json.Unmarshal(got.Probe.Status, &status); err != nil || status.Client.Version != "0.8.2" || !status.Server.Running {
		t.Errorf("probe status %s (%v); want client 0.8.2, server running", got.Probe.Status, err)
	}
	w.checkReadOnly(t)
}

func TestProbeProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, w *world)
		want  []string
	}{
		{
			name: "server not running",
			setup: func(t *testing.T, w *world) {
				if err := w.h.StopServer(); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"herdr --version: herdr 0.8.2\n", `"server":{"status":"not_running"`},
		},
		{
			name: "binary hangs",
			setup: func(t *testing.T, w *world) {
				if err := w.h.SetFault(herdrtest.Fault{Hang: true}); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"herdr --version: failed: herdr --version: signal: killed\n", "herdr status --json: failed: herdr status --json: signal: killed\n"},
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
			want: []string{"adapter herdr: inactive", string(filepath.Separator) + "herdr is not executable\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, true)
			tc.setup(t, w)
			code, stdout, stderr := w.run(t)
			if code != 0 || stderr != "" {
				t.Fatalf("run = %d, stderr %q; want 0, empty", code, stderr)
			}
			for _, s := range tc.want {
				if !strings.Contains(stdout, s) {
					t.Errorf("output does not contain %q:\n%s", s, stdout)
				}
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
