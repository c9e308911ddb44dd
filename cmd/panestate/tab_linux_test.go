package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/hook"
)

// tabEnv is the environment of an agent in a plain tab of the terminal
// termProgram names (TERM_PROGRAM, TERM_PROGRAM_VERSION): no Herdr or tmux
// pane, HOME holding settings.
func tabEnv(t *testing.T, rt []string, files map[string]string, termProgram ...string) []string {
	t.Helper()
	env := slices.DeleteFunc(ttyEnv(t, rt, files), func(kv string) bool {
		return strings.HasPrefix(kv, "TMUX") || strings.HasPrefix(kv, "TERM_PROGRAM")
	})
	return append(env, termProgram...)
}

// ghostty is Ghostty 1.2.0, which shows OSC 9;4.
var ghostty = []string{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0"}

// TestPlainTabReportsToTheAgentsTerminal runs whole sessions in a plain
// terminal tab (no TMUX, no HERDR_*), from a stand-in agent on a pty whose
// hooks run without a terminal, as Claude Code runs them: where a reporter
// writes to the agent's terminal, the hook starts a bridge keyed on that
// terminal, which writes exactly the state, ending with the goodbye; where
// none would, the hook starts nothing, writes nothing, and leaves no
// runtime directory. Nothing of the payloads reaches the terminal.
func TestPlainTabReportsToTheAgentsTerminal(t *testing.T) {
	bin := buildPanestate(t)
	tests := []struct {
		name   string
		agent  string
		term   []string
		files  map[string]string
		extra  []string // more environment
		steps  []ttyStep
		bridge bool // whether the hook starts a bridge
	}{
		{name: "gemini in Ghostty: OSC 9;4", agent: "gemini", term: ghostty, steps: geminiTurn, bridge: true},
		{name: "claude-code in Ghostty, its own OSC 9;4 left alone: nothing", agent: "claude-code", term: ghostty,
			steps: claudeTurn("", "", "", "", "")},
		{name: "claude-code in Ghostty with terminal.enabled: OSC 9;4", agent: "claude-code", term: ghostty,
			files: map[string]string{"claude-code.json": `{"terminal": {"enabled": true}}`},
			steps: claudeTurn(osc94Idle, osc94Working, osc94Blocked, osc94Idle, osc94Idle), bridge: true},
		{name: "claude-code with progstatus.enabled: its own record wins, nothing", agent: "claude-code",
			files: map[string]string{"settings.json": `{"progstatus": {"enabled": true}}`},
			steps: claudeTurn("", "", "", "", "")},
		{name: "claude-code where the terminal answered the probe: its own record wins, nothing", agent: "claude-code",
			extra: []string{"PANESTATE_PROGSTATUS=1"},
			steps: claudeTurn("", "", "", "", ""), bridge: true}, // PANESTATE_PROGSTATUS, scrubbed, counts as a pane's variable
		{name: "gemini with progstatus.enabled: OSC 7501", agent: "gemini", term: ghostty,
			files: map[string]string{"settings.json": progstatusOnly}, steps: geminiPS, bridge: true},
		{name: "gemini where the terminal answered the probe: OSC 7501", agent: "gemini",
			files: map[string]string{"settings.json": `{"terminal": {"enabled": false}}`},
			extra: []string{"PANESTATE_PROGSTATUS=1"}, steps: geminiPS, bridge: true},
		{name: "gemini in an unrecognised terminal, nothing enabled: nothing", agent: "gemini",
			term:  []string{"TERM_PROGRAM=someterm", "TERM_PROGRAM_VERSION=9.9"},
			steps: []ttyStep{{"SessionStart", nil}, {"BeforeAgent", nil}, {"Notification", nil}, {"AfterAgent", nil}, {"SessionEnd", nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, rt := runtimeEnv(t)
			env := append(tabEnv(t, rt, tt.files, tt.term...), tt.extra...)
			a, s := startAgentTTY(t, bin, tt.agent, env)
			var want []string
			pid := 0
			for _, st := range tt.steps {
				a.hook(t, fixture(tt.agent, st.event))
				if tt.bridge && pid == 0 {
					pid = bridgeIn(t, bin, dir)
				}
				if !tt.bridge {
					if left := leftovers(bin); len(left) > 0 {
						t.Fatalf("after %s: processes of the hook's left: %v, want none", st.event, left)
					}
					if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
						t.Fatalf("after %s: the runtime directory %s: %v, want none", st.event, dir, err)
					}
				}
				for _, seq := range st.adds {
					if seq != "" {
						want = append(want, seq)
					}
				}
				s.wait(t, st.event, len(want))
			}
			if pid != 0 {
				waitExit(t, pid)
			}
			if diff := cmp.Diff(s.sequences(), want); diff != "" {
				t.Errorf("sequences on the agent's terminal (-got +want):\n%s", diff)
			}
			checkScreen(t, s)
			noLeftovers(t, bin)
		})
	}
}

// TestPlainTabsKeepTheirOwnBridges: two agents in two tabs each have a
// bridge of their own, keyed on their terminals, and each tab shows only
// its agent's state.
func TestPlainTabsKeepTheirOwnBridges(t *testing.T) {
	bin := buildPanestate(t)
	dir, rt := runtimeEnv(t)
	env := tabEnv(t, rt, nil, ghostty...)
	a1, s1 := startAgentTTY(t, bin, "gemini", env)
	a2, s2 := startAgentTTY(t, bin, "gemini", env)
	a1.hook(t, fixture("gemini", "BeforeAgent"))
	s1.wait(t, "BeforeAgent in tab 1", 1)
	a2.hook(t, fixture("gemini", "SessionStart"))
	s2.wait(t, "SessionStart in tab 2", 1)
	pids := leftovers(bin)
	if len(pids) != 2 {
		t.Fatalf("bridges: %v, want two", pids)
	}
	a1.hook(t, fixture("gemini", "SessionEnd"))
	a2.hook(t, fixture("gemini", "SessionEnd"))
	for _, pid := range pids {
		waitExit(t, pid)
	}
	s1.wait(t, "SessionEnd in tab 1", 2)
	s2.wait(t, "SessionEnd in tab 2", 2)
	if diff := cmp.Diff(s1.sequences(), []string{osc94Working, osc94Idle}); diff != "" {
		t.Errorf("tab 1 (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(s2.sequences(), []string{osc94Idle, osc94Idle}); diff != "" {
		t.Errorf("tab 2 (-got +want):\n%s", diff)
	}
	socks, _ := os.ReadDir(dir)
	for _, f := range socks {
		if strings.HasSuffix(f.Name(), ".sock") {
			t.Errorf("socket %s left after both sessions ended", f.Name())
		}
	}
}

// BenchmarkOutsideDecision times, in the hook's process, what it does
// before it returns outside every pane, as the hook did before plain tabs
// (paneVars: a registry, asked which variables name a pane) and as it does
// now (workspace: a registry with the bridge's settings, asked that and,
// outside every pane, whether a terminal reporter would run), interleaved,
// for claude-code in a Ghostty tab with the default settings (neither
// would run).
func BenchmarkOutsideDecision(b *testing.B) {
	env := []string{"HOME=" + b.TempDir(), "PATH=/usr/bin:/bin", "TERM=xterm-256color", "TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0"}
	for _, bc := range []struct {
		name string
		f    func() bool // whether the hook goes on
	}{
		{"paneVars", func() bool { return len(paneVars(env)) > 0 }},
		{"workspace", func() bool { pane, r := workspace("claude-code", env); return len(pane)+len(r) > 0 }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if bc.f() {
					b.Fatal("the hook would go on outside every pane, for claude-code with default settings")
				}
			}
		})
	}
}

// TestTabPreCheckAgreesWithTheRegistry: outside every pane, the hook's
// pre-check (mayReportInTab) rules a plain tab out only where the registry
// of the tab's bridge would open no reporter; with neither settings file
// present it says exactly what the registry says, and with either it
// leaves the decision to the registry.
func TestTabPreCheckAgreesWithTheRegistry(t *testing.T) {
	envs := map[string][]string{
		"nothing":                        nil,
		"Ghostty 1.2.0":                  ghostty,
		"Ghostty 1.0.0":                  {"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.0.0"},
		"Ghostty, TERM=dumb":             append([]string{"TERM=dumb"}, ghostty...),
		"Ghostty in GNU screen":          append([]string{"STY=1.pts-0"}, ghostty...),
		"Ghostty in zellij":              append([]string{"ZELLIJ=0"}, ghostty...),
		"iTerm2 3.6.6":                   {"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.6"},
		"VS Code 1.103.0":                {"TERM_PROGRAM=vscode", "TERM_PROGRAM_VERSION=1.103.0"},
		"WezTerm 20240203":               {"TERM_PROGRAM=WezTerm", "TERM_PROGRAM_VERSION=20240203-110809-5046fc22"},
		"Windows Terminal":               {"WT_SESSION=1"},
		"an unrecognised terminal":       {"TERM_PROGRAM=someterm", "TERM_PROGRAM_VERSION=9.9"},
		"the probe answered":             {"PANESTATE_PROGSTATUS=1"},
		"the probe did not answer":       {"PANESTATE_PROGSTATUS=0"},
		"Herdr's environment, no pane":   append([]string{"HERDR_ENV=1"}, ghostty...),
		"tmux's TERM_PROGRAM, no TMUX":   {"TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.7c"},
		"the probe answered, TERM=dumb":  {"PANESTATE_PROGSTATUS=1", "TERM=dumb"},
		"the probe answered, in zellij":  {"PANESTATE_PROGSTATUS=1", "ZELLIJ=0"},
		"Ghostty 1.2.0, the probe: 0":    append([]string{"PANESTATE_PROGSTATUS=0"}, ghostty...),
		"an unrecognised terminal, 1":    {"TERM_PROGRAM=someterm", "PANESTATE_PROGSTATUS=1"},
		"Windows Terminal in GNU screen": {"WT_SESSION=1", "STY=1.pts-0"},
	}
	files := map[string]map[string]string{
		"no settings files": nil,
		"terminal off":      {"settings.json": `{"terminal": {"enabled": false}}`},
		"terminal forced":   {"claude-code.json": `{"terminal": {"enabled": true}}`},
		"progstatus forced": {"settings.json": `{"progstatus": {"enabled": true}}`},
	}
	var reporting, silent int
	for fname, fs := range files {
		for ename, extra := range envs {
			for _, agent := range []string{"claude-code", "codex", "gemini"} {
				env := append(tabEnv(t, nil, fs), extra...)
				maybe := mayReportInTab(hookAgent(t, agent), env)
				reporters := tabReporters(hookAgent(t, agent), env)
				_, global := fs["settings.json"]
				_, own := fs[agent+".json"]
				switch read := global || own; {
				case !maybe && len(reporters) > 0:
					t.Errorf("%s, %s, %s: the pre-check rules out a tab where the registry opens %v", fname, ename, agent, reporters)
				case !read && maybe != (len(reporters) > 0):
					t.Errorf("%s, %s, %s: the pre-check says %v, the registry opens %v", fname, ename, agent, maybe, reporters)
				case read && !maybe:
					t.Errorf("%s, %s, %s: the pre-check decided with a settings file of the agent's present", fname, ename, agent)
				}
				if len(reporters) > 0 {
					reporting++
				} else {
					silent++
				}
			}
		}
	}
	// Not vacuous: both verdicts occur.
	if reporting == 0 || silent == 0 {
		t.Errorf("the registry opened reporters in %d cases and none in %d: want both", reporting, silent)
	}
}

// hookAgent is the agent name parses to.
func hookAgent(t *testing.T, name string) hook.Agent {
	t.Helper()
	agent, err := hook.ParseAgent(name)
	if err != nil {
		t.Fatal(err)
	}
	return agent
}

// TestPlainTabSessionsShareTheTabsBridgeKey: two sessions of one agent in
// one tab, one after the other, have bridges with the same key (the
// terminal's), the second started after the first ended, and the tab
// shows each session whole.
func TestPlainTabSessionsShareTheTabsBridgeKey(t *testing.T) {
	bin := buildPanestate(t)
	dir, rt := runtimeEnv(t)
	a, s := startAgentTTY(t, bin, "gemini", tabEnv(t, rt, nil, ghostty...))
	var want []string
	for session := range 2 {
		pid := 0
		for _, st := range geminiTurn {
			a.hook(t, fixture("gemini", st.event))
			if pid == 0 {
				pid = bridgeIn(t, bin, dir)
			}
			want = append(want, st.adds...)
			s.wait(t, fmt.Sprintf("session %d, %s", session+1, st.event), len(want))
		}
		waitExit(t, pid)
	}
	if diff := cmp.Diff(s.sequences(), want); diff != "" {
		t.Errorf("sequences on the agent's terminal (-got +want):\n%s", diff)
	}
	locks, err := filepath.Glob(filepath.Join(dir, "gemini-*.lock"))
	if err != nil || len(locks) != 1 {
		t.Errorf("bridge locks in the runtime directory: %q (%v), want one: both sessions' bridges keyed on the tab's terminal", locks, err)
	}
	checkScreen(t, s)
	noLeftovers(t, bin)
}

// TestDoctorInAPlainTabSaysWhatItsLastBridgeFound: `panestate doctor` run
// on the terminal of a plain tab (no Herdr or tmux pane) names what the
// tab's last bridge found of the agent's terminal.
func TestDoctorInAPlainTabSaysWhatItsLastBridgeFound(t *testing.T) {
	bin := buildPanestate(t)
	dir, rt := runtimeEnv(t)
	env := tabEnv(t, rt, nil, ghostty...)
	a, s := startAgentTTY(t, bin, "gemini", env)
	a.hook(t, fixture("gemini", "BeforeAgent"))
	pid := bridgeIn(t, bin, dir)
	a.hook(t, fixture("gemini", "SessionEnd"))
	waitExit(t, pid)
	found := bridgeFile(t, dir, "gemini-*.tty")
	path, ok := strings.CutPrefix(found, "writes to terminal ")
	if !ok {
		t.Fatalf("the bridge found %q, want a terminal", found)
	}
	tty, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	cmd := exec.Command(bin, "doctor", "--probe=false")
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, tty, tty, tty
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() == 2 {
		t.Fatal(err)
	}
	s.waitText(t, "gemini: "+bridgeInTab+"terminal if the agent has a terminal; its file ")
	s.waitText(t, "; its last bridge in this tab "+found)
}
