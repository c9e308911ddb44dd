//go:build unix

package cmdrun_test

import (
	"path/filepath"
	"testing"
	"time"

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
