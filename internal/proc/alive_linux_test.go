package proc_test

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/panestate/panestate/internal/proc"
)

// TestAliveIsFalseForAZombie: a child that has exited and that its parent
// has not reaped yet is dead to Alive, though kill(pid, 0) still succeeds.
func TestAliveIsFalseForAZombie(t *testing.T) {
	cmd := exitingChild(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	// Wait for the exit, leaving the child unreaped (WNOWAIT).
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if err := unix.Kill(pid, 0); err != nil {
		t.Fatalf("kill(%d, 0) = %v: the zombie is not there to test", pid, err)
	}
	if proc.Alive(pid) {
		t.Errorf("Alive(%d) = true for a zombie", pid)
	}
}
