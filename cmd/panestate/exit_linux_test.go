package main

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestExitOfTellsTheAgentsDeathAtOnce watches a stand-in agent's pidfd: the
// channel is closed once it is killed, not before; stop ends the watch of
// a live process, leaving the channel open; a process that is gone gives no
// channel, leaving the bridge's periodic check.
func TestExitOfTellsTheAgentsDeathAtOnce(t *testing.T) {
	t.Run("killed", func(t *testing.T) {
		a := startAgent(t, "unused", "claude-code", nil)
		exited, stop := exitOf(a.cmd.Process.Pid)
		defer stop()
		if exited == nil {
			t.Fatal("no pidfd for a live child")
		}
		select {
		case <-exited:
			t.Fatal("closed while the agent runs")
		default:
		}
		if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-exited // the test's deadline bounds this
	})
	t.Run("stopped", func(t *testing.T) {
		a := startAgent(t, "unused", "claude-code", nil)
		exited, stop := exitOf(a.cmd.Process.Pid)
		stop() // returns once the watch's goroutine has ended
		select {
		case <-exited:
			t.Error("closed by stop, while the agent runs")
		default:
		}
	})
	t.Run("gone", func(t *testing.T) {
		cmd := exec.CommandContext(t.Context(), "/bin/sh", "-c", "exit 0")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		exited, stop := exitOf(cmd.Process.Pid) // reaped: no such process
		defer stop()
		if exited != nil {
			t.Error("a channel for a process that is gone")
		}
	})
}
