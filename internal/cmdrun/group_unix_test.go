//go:build unix

package cmdrun_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/panestate/panestate/internal/proc"
)

func TestRunKillsGrandchildHoldingPipe(t *testing.T) {
	// The child exits 0 at once but leaves a grandchild holding its stdout:
	// Run returns after WaitDelay, counts the call as done, and kills the
	// grandchild with the group.
	pidfile := filepath.Join(t.TempDir(), "pid")
	r := helper(t)
	r.WaitDelay = 200 * time.Millisecond
	if _, err := r.Run(t.Context(), helperArg, "grandchild", pidfile); err != nil {
		t.Fatalf("Run = %v; want nil (the child exited 0)", err)
	}
	pid := readPid(t, pidfile)
	eventually(t, "the grandchild to be dead", func() bool { return !proc.Alive(pid) })
}

func TestLeaveOutlivesTheCallAndIsNotKilled(t *testing.T) {
	// A call left behind runs on its own: Leave returns before it ends,
	// it is not in a group the runner kills, and it is nobody's zombie.
	pidfile := filepath.Join(t.TempDir(), "pid")
	r := helper(t)
	if err := r.Leave(helperArg, "hang", pidfile); err != nil {
		t.Fatalf("Leave = %v", err)
	}
	pid := readPid(t, pidfile)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if !proc.Alive(pid) {
		t.Fatal("the program left behind is not running")
	}
	if pgid, err := unix.Getpgid(pid); err != nil || pgid == unix.Getpgrp() {
		t.Errorf("the program left behind is in the test's process group (%d, %v)", pgid, err)
	}
}
