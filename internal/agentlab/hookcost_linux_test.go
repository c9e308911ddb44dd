//go:build linux

package agentlab

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkClaudeCodeHookCost measures what `panestate hook claude-code`
// costs the real Claude Code 2.1.328, against a hook that is `true`: the
// agent runs `claude -p` turns with a Bash tool call (six hooks each:
// SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop,
// SessionEnd) in an emulated Herdr 0.9.3 pane, the two kinds of hook in
// alternate runs. Each hook command is the test binary timing its
// arguments (the same timer in both), so a sample is the hook's own time
// from its start to its exit, on Claude Code's payload and environment,
// with a live bridge. It reports the median, 90th percentile and maximum
// of each; run it with -benchtime=1x (the runs are fixed: 2 × 20 turns).
func BenchmarkClaudeCodeHookCost(b *testing.B) {
	const runs = 20
	c := &claude{bin: Binary(b, ClaudeCode), home: NewHome(b)}
	c.model = StartModel(b, Anthropic, ToolTurn(bashCall("MARKCMD9"), "Done."))
	SetupClaude(b, c.home, c.model)
	c.pane = StartPane(b, Herdr, c.home, PaneOptions{})
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	arms := map[string][]string{"panestate": {"panestate", "hook", "claude-code"}, "true": {"true"}}
	for b.Loop() {
		for i := range 2 * runs {
			name := []string{"panestate", "true"}[i%2]
			out := filepath.Join(dir, name)
			setHookCommand(b, c.home, shellQuote(self)+" "+strings.Join(arms[name], " "))
			c.pane.Run(b, []string{timeHookEnv + "=" + out}, c.bin, "-p", "make the file", "--allowedTools", "Bash")
			if code := c.pane.WaitExit(b); code != 0 {
				b.Fatalf("claude -p exited %d:\n%s", code, c.pane.Screen(b))
			}
		}
	}
	for _, name := range []string{"panestate", "true"} {
		all, first := readDurations(b, filepath.Join(dir, name))
		later := slices.Clone(all[len(first):])
		if len(all) < runs {
			b.Fatalf("%s: %d samples, want at least %d", name, len(all), runs)
		}
		for _, set := range []struct {
			what string
			s    []time.Duration
		}{{"", all}, {"-later", later}} {
			s := set.s
			slices.Sort(s)
			p50, p90, maxd := s[len(s)/2], s[len(s)*9/10], s[len(s)-1]
			b.ReportMetric(float64(p50.Microseconds())/1000, name+set.what+"-p50-ms")
			b.ReportMetric(float64(p90.Microseconds())/1000, name+set.what+"-p90-ms")
			b.ReportMetric(float64(maxd.Microseconds())/1000, name+set.what+"-max-ms")
			b.Logf("%s%s: %d hooks, p50 %v, p90 %v, max %v", name, set.what, len(s), p50, p90, maxd)
		}
		slices.Sort(first)
		b.Logf("%s SessionStart (the first hook of each run, which starts the bridge): %d, p50 %v, max %v", name, len(first), first[len(first)/2], first[len(first)-1])
	}
}

// setHookCommand makes every hook of ~/.claude/settings.json run command.
func setHookCommand(tb testing.TB, home *Home, command string) {
	tb.Helper()
	path := filepath.Join(home.Dir, ".claude", "settings.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		tb.Fatal(err)
	}
	for _, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				h["command"] = command
			}
		}
	}
	out, err := json.Marshal(s)
	if err != nil {
		tb.Fatal(err)
	}
	home.WriteFile(tb, filepath.Join(".claude", "settings.json"), out)
}

// readDurations reads what timeHook wrote: every duration, the
// SessionStart hooks' first (also returned alone), then the others.
func readDurations(tb testing.TB, path string) (all, first []time.Duration) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var later []time.Duration
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ns, event, _ := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			tb.Fatal(err)
		}
		if event == "SessionStart" {
			first = append(first, time.Duration(n))
		} else {
			later = append(later, time.Duration(n))
		}
	}
	return append(slices.Clone(first), later...), first
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
