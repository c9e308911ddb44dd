package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// BenchmarkHook times one hook process, start to exit, as the agent sees
// it, with the pane's bridge running: against a listening Herdr and
// against a hung one. It reports the median and the 99th percentile. Two
// floors, measured in the same run for the ratios: the same hook outside
// every workspace (the binary's own start: it returns before any work),
// and an empty Go program.
func BenchmarkHook(b *testing.B) {
	bin := buildPanestate(b)
	b.Run("floor=empty-program", func(b *testing.B) {
		benchExec(b, emptyProgram(b), nil, nil)
	})
	b.Run("floor=outside", func(b *testing.B) {
		benchExec(b, bin, os.Environ(), []string{"hook", "claude-code"})
	})
	for _, bc := range []struct {
		name string
		hang bool
		cgo  bool
	}{{"listening", false, false}, {"hung", true, false}, {"listening/cgo", false, true}} {
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
			run := func(event string) time.Duration {
				f, err := os.Open(fixture("claude-code", event))
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				cmd := exec.Command(bin, "hook", "claude-code")
				cmd.Env, cmd.Stdin = env, f
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			run("UserPromptSubmit")
			waitStatusB(b, h, herdrtest.StatusWorking)
			bridge := bridgePID(b, filepath.Join(runtime, "panestate"))
			if bc.hang {
				if err := h.SetFault(herdrtest.Fault{Hang: true}); err != nil {
					b.Fatal(err)
				}
			}
			events := []string{"PreToolUse", "PostToolUse", "PermissionRequest", "PostToolUse"}
			times := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				times = append(times, run(events[i%len(events)]))
			}
			b.StopTimer()
			reportPercentiles(b, times)
			if err := h.SetFault(herdrtest.Fault{}); err != nil {
				b.Fatal(err)
			}
			run("SessionEnd")
			waitExit(b, bridge)
		})
	}
}

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
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "max-ms")
}

// benchExec times bin with args in env, stdin a payload.
func benchExec(b *testing.B, bin string, env, args []string) {
	var times []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(fixture("claude-code", "PreToolUse"))
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Stdin = env, f
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		f.Close()
	}
	reportPercentiles(b, times)
}

// reportPercentiles reports the median and the 99th percentile of times.
func reportPercentiles(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[(len(times)*99)/100].Microseconds())/1000, "p99-ms")
}

// emptyProgram builds a Go program that does nothing.
func emptyProgram(b *testing.B) string {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module empty\n\ngo 1.26\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "empty")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		panic(string(b))
	}
	return out
}
