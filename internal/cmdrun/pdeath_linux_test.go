package cmdrun_test

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/panestate/panestate/internal/proc"
)

func TestChildDiesWithKilledHost(t *testing.T) {
	// A host process runs a hung child through a Runner and is then killed
	// with SIGKILL, which it cannot handle: the parent-death signal takes
	// the child with it.
	pidfile := filepath.Join(t.TempDir(), "pid")
	host := exec.Command(helper(t).Path, helperArg, "host", pidfile)
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	child := readPid(t, pidfile)
	t.Cleanup(func() {
		if proc.Alive(child) { // the test failed: do not leave it behind
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	eventually(t, "the child of the killed host to be dead", func() bool { return !proc.Alive(child) })
}
