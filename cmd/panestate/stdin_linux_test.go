package main

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// TestHookWithStdinLeftOpenReturns: an agent that writes part of a JSON
// value, nothing, or bytes that are no JSON, and leaves stdin open, does
// not hold its hook: the read ends at its bound (payloadTimeout), the hook
// exits 0 and writes nothing to stdout. A complete value on a stdin left
// open still ends the read at once and reaches the pane.
func TestHookWithStdinLeftOpenReturns(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{})
	dir, rt := runtimeEnv(t)
	env := append(h.PaneEnv(t.TempDir()), rt...)
	run := func(t *testing.T, input string) time.Duration {
		t.Helper()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close() // open until the hook is done
		cmd := exec.Command(bin, "hook", "claude-code")
		var stdout, stderr bytes.Buffer
		cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, r, &stdout, &stderr
		if _, err := w.WriteString(input); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(10 * time.Second): // a bound on a hang, not a speed
			_ = cmd.Process.Kill()
			<-done
			t.Fatal("the hook still runs after 10 s")
		}
		took := time.Since(start)
		if err != nil || stdout.Len() > 0 {
			t.Errorf("hook: %v, stdout %q, stderr %q; want exit 0 and nothing on stdout", err, stdout.String(), stderr.String())
		}
		t.Logf("the hook took %v (load %s)", took.Round(time.Millisecond), loadAverage())
		return took
	}
	for name, input := range map[string]string{
		"partial JSON": `{"hook_event_name":"Stop","session_id":"s1`,
		"nothing":      "",
		"not JSON":     "\x00\x01\x1b[2Jgarbage",
	} {
		t.Run(name, func(t *testing.T) { run(t, input) })
	}
	t.Run("a complete value", func(t *testing.T) {
		b, err := os.ReadFile(fixture("claude-code", "UserPromptSubmit"))
		if err != nil {
			t.Fatal(err)
		}
		run(t, string(b))
		waitStatus(t, h, "UserPromptSubmit on a stdin left open", herdrtest.StatusWorking)
		pid := bridgePID(t, dir)
		// The bridge's agent is this test process: end its session.
		if b, err = os.ReadFile(fixture("claude-code", "SessionEnd")); err != nil {
			t.Fatal(err)
		}
		run(t, string(b))
		waitStatus(t, h, "SessionEnd", "")
		waitExit(t, pid)
	})
}

// loadAverage is the system's load average over the last minute, as
// /proc/loadavg gives it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	load, _, _ := bytes.Cut(b, []byte(" "))
	return string(load)
}
