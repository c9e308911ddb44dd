package main

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/hook"
)

// TestBridgeWithoutAPidfdSeesItsAgentDie runs a bridge whose system gives
// no pidfd (macOS, Linux before 5.10): its periodic check alone finds the
// agent killed mid-turn, and the pane is released.
func TestBridgeWithoutAPidfdSeesItsAgentDie(t *testing.T) {
	h := herdrtest.StartT(t, herdrtest.Options{})
	a := startAgent(t, "unused", "claude-code", nil)
	dir, err := os.MkdirTemp("", "psfb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("unix", filepath.Join(dir, "b.sock"))
	if err != nil {
		t.Fatal(err)
	}
	owner := a.cmd.Process.Pid
	b := &bridge{agent: hook.ClaudeCode, ln: ln, owner: owner, idle: time.Hour,
		events: make(chan hook.Event, 1), done: make(chan struct{}),
		uidOf: peerUID, logf: func(string, ...any) {},
		exitOf: func(int) (<-chan struct{}, func()) { return nil, func() {} }}
	first := hook.Event{Agent: hook.ClaudeCode, Kind: hook.KindTurnStart, Session: "s1", PID: owner, Time: 1}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		b.run(t.Context(), h.PaneEnv(t.TempDir()), first)
	}()
	t.Cleanup(func() { <-ended }) // after the test's context ends a bridge that missed the death
	waitStatus(t, h, "UserPromptSubmit", herdrtest.StatusWorking)
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	waitStatus(t, h, "SIGKILL", "")
	<-ended
}
