package proc_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/panestate/panestate/internal/proc"
)

func TestAlive(t *testing.T) {
	tests := []struct {
		name string
		pid  int
		want bool
	}{
		{"this process", os.Getpid(), true},
		{"pid 0", 0, false},
		{"a negative pid", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := proc.Alive(tt.pid); got != tt.want {
				t.Errorf("Alive(%d) = %v, want %v", tt.pid, got, tt.want)
			}
		})
	}
}

// exitingChild is a command that runs this test binary, which runs no test
// and exits.
func exitingChild(t *testing.T) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exec.CommandContext(t.Context(), exe, "-test.run=^$")
}

func TestAliveIsFalseForAnExitedChild(t *testing.T) {
	cmd := exitingChild(t)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if proc.Alive(cmd.Process.Pid) {
		t.Errorf("Alive(%d) = true for a child that exited and was waited for", cmd.Process.Pid)
	}
}
