package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// BenchmarkHook times one hook process, start to exit, as the agent sees
// it, with the pane's bridge running: against a listening Herdr and
// against a hung one. Each iteration also runs, interleaved, in the same
// environment with the same stdin and started and waited for the same way,
// two floors: an empty Go program built like the command (floor: what a
// process start costs on this machine) and the command itself outside
// every workspace (outside: the start of this binary, its size and package
// initialisers, which return before any work). It reports the median and
// the 99th percentile of each, and own-p50-ms, the hook's median less the
// floor's: what the hook adds to a process start. The /cgo cases run the
// command built with cgo, as a plain go install builds it where a C
// compiler is present: dynamically linked on Linux.
func BenchmarkHook(b *testing.B) {
	bin := buildPanestate(b)
	floor := emptyProgram(b)
	for _, bc := range []struct {
		name string
		hang bool
		cgo  bool
	}{{"listening", false, false}, {"hung", true, false}, {"listening/cgo", false, true}, {"hung/cgo", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			bin := bin
			if bc.cgo {
				bin = buildWith(b, true)
			}
			h := herdrtest.StartT(b, herdrtest.Options{})
			runtime, err := os.MkdirTemp("", "psrt")
			if err != nil {
				b.Fatal(err)
			}
			defer os.RemoveAll(runtime)
			env := append(h.PaneEnv(b.TempDir()), "XDG_RUNTIME_DIR="+runtime)
			outside := withoutPane(env)
			run := func(bin string, env []string, args ...string) time.Duration {
				return timeRun(b, bin, env, args, "PreToolUse")
			}
			timeRun(b, bin, env, []string{"hook", "claude-code"}, "UserPromptSubmit")
			waitStatusB(b, h, herdrtest.StatusWorking)
			bridge := bridgePID(b, filepath.Join(runtime, "panestate"))
			if bc.hang {
				if err := h.SetFault(herdrtest.Fault{Hang: true}); err != nil {
					b.Fatal(err)
				}
			}
			events := []string{"PreToolUse", "PostToolUse", "PermissionRequest", "PostToolUse"}
			var hooks, floors, outsides []time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				floors = append(floors, run(floor, env))
				outsides = append(outsides, run(bin, outside, "hook", "claude-code"))
				hooks = append(hooks, timeRun(b, bin, env, []string{"hook", "claude-code"}, events[i%len(events)]))
			}
			b.StopTimer()
			hp50, hp99 := percentiles(hooks)
			fp50, fp99 := percentiles(floors)
			op50, op99 := percentiles(outsides)
			b.ReportMetric(ms(hp50), "p50-ms")
			b.ReportMetric(ms(hp99), "p99-ms")
			b.ReportMetric(ms(fp50), "floor-p50-ms")
			b.ReportMetric(ms(fp99), "floor-p99-ms")
			b.ReportMetric(ms(op50), "outside-p50-ms")
			b.ReportMetric(ms(op99), "outside-p99-ms")
			b.ReportMetric(ms(hp50-fp50), "own-p50-ms")
			if err := h.SetFault(herdrtest.Fault{}); err != nil {
				b.Fatal(err)
			}
			timeRun(b, bin, env, []string{"hook", "claude-code"}, "SessionEnd")
			waitExit(b, bridge)
		})
	}
}

// BenchmarkHookFirst times the first hook of a session in a pane, the one
// that starts the bridge and waits (at most readyTimeout) until it
// listens, with the empty program interleaved as in BenchmarkHook. Each
// iteration has a runtime directory of its own; the session's end and the
// bridge's exit are not timed.
func BenchmarkHookFirst(b *testing.B) {
	bin := buildPanestate(b)
	floor := emptyProgram(b)
	h := herdrtest.StartT(b, herdrtest.Options{})
	home := b.TempDir()
	var hooks, floors []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		runtime, err := os.MkdirTemp("", "psrt")
		if err != nil {
			b.Fatal(err)
		}
		env := append(h.PaneEnv(home), "XDG_RUNTIME_DIR="+runtime)
		b.StartTimer()
		floors = append(floors, timeRun(b, floor, env, nil, "SessionStart"))
		hooks = append(hooks, timeRun(b, bin, env, []string{"hook", "claude-code"}, "SessionStart"))
		b.StopTimer()
		waitStatusB(b, h, herdrtest.StatusIdle) // the bridge has attached
		bridge := bridgePID(b, filepath.Join(runtime, "panestate"))
		timeRun(b, bin, env, []string{"hook", "claude-code"}, "SessionEnd")
		waitStatusB(b, h, "")
		waitExit(b, bridge)
		os.RemoveAll(runtime)
		b.StartTimer()
	}
	hp50, hp99 := percentiles(hooks)
	fp50, fp99 := percentiles(floors)
	b.ReportMetric(ms(hp50), "p50-ms")
	b.ReportMetric(ms(hp99), "p99-ms")
	b.ReportMetric(ms(fp50), "floor-p50-ms")
	b.ReportMetric(ms(fp99), "floor-p99-ms")
}

// timeRun runs bin with args in env, the Claude Code payload event on its
// stdin, and returns the time from start to exit.
func timeRun(b *testing.B, bin string, env, args []string, event string) time.Duration {
	f, err := os.Open(fixture("claude-code", event))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Stdin = env, f
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// withoutPane is env without the variables that name a workspace pane.
func withoutPane(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "HERDR_") || strings.HasPrefix(kv, "TMUX")
	})
}

// percentiles returns the median and the 99th percentile of times.
func percentiles(times []time.Duration) (p50, p99 time.Duration) {
	times = slices.Sorted(slices.Values(times))
	return times[len(times)/2], times[(len(times)*99)/100]
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkCrashRelease times the release of the pane after the agent is
// killed with SIGKILL in the middle of a turn: from the kill to Herdr's
// handling of the release.
func BenchmarkCrashRelease(b *testing.B) {
	bin := buildPanestate(b)
	h := herdrtest.StartT(b, herdrtest.Options{})
	var times []time.Duration
	for b.Loop() {
		b.StopTimer()
		runtime, err := os.MkdirTemp("", "psrt")
		if err != nil {
			b.Fatal(err)
		}
		env := append(h.PaneEnv(b.TempDir()), "XDG_RUNTIME_DIR="+runtime)
		a := startAgentB(b, bin, "claude-code", env)
		a.hookB(b, fixture("claude-code", "UserPromptSubmit"))
		waitStatusB(b, h, herdrtest.StatusWorking)
		bridge := bridgePID(b, filepath.Join(runtime, "panestate"))
		b.StartTimer()
		killed := time.Now()
		if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			b.Fatal(err)
		}
		_ = a.cmd.Wait()
		waitStatusB(b, h, "")
		times = append(times, time.Since(killed))
		b.StopTimer()
		waitExit(b, bridge)
		os.RemoveAll(runtime)
		b.StartTimer()
	}
	slices.Sort(times)
	b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
	b.ReportMetric(ms(times[len(times)-1]), "max-ms")
}

// emptyProgram builds a Go program that does nothing, as buildPanestate
// builds the command (CGO_ENABLED=0).
func emptyProgram(b *testing.B) string {
	return goProgram(b, "package main\n\nfunc main() {}\n", false)
}

// netProgram is the source of a Go program that links package net and
// does nothing.
const netProgram = "package main\n\nimport \"net\"\n\nvar _ = net.Dial\n\nfunc main() {}\n"

// goProgram builds the Go program of src, with or without cgo.
func goProgram(b *testing.B, src string, cgo bool) string {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module empty\n\ngo 1.26\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "empty")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+map[bool]string{false: "0", true: "1"}[cgo])
	if b, err := cmd.CombinedOutput(); err != nil {
		panic(string(b))
	}
	return out
}

// BenchmarkStart says where a cgo build's start cost comes from: it runs,
// interleaved, an empty Go program, one that links package net, and
// `panestate hook claude-code` outside every workspace (which returns
// before any work), each built with and without cgo, and reports the
// median start-to-exit time of each. With cgo, a program that links net is
// dynamically linked (libc's resolver); one that does not is static
// either way.
func BenchmarkStart(b *testing.B) {
	type prog struct {
		name string
		bin  string
		args []string
	}
	var progs []prog
	for _, cgo := range []bool{false, true} {
		suffix := map[bool]string{false: "", true: "-cgo"}[cgo]
		progs = append(progs,
			prog{"empty" + suffix, goProgram(b, "package main\n\nfunc main() {}\n", cgo), nil},
			prog{"net" + suffix, goProgram(b, netProgram, cgo), nil},
			prog{"panestate" + suffix, buildWith(b, cgo), []string{"hook", "claude-code"}})
	}
	env := []string{"HOME=" + b.TempDir()}
	times := make([][]time.Duration, len(progs))
	for b.Loop() {
		for i, p := range progs {
			times[i] = append(times[i], timeRun(b, p.bin, env, p.args, "PreToolUse"))
		}
	}
	for i, p := range progs {
		p50, _ := percentiles(times[i])
		b.ReportMetric(ms(p50), p.name+"-p50-ms")
	}
}
