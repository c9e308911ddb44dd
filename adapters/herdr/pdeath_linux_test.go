package herdr

import (
	"io"
	"syscall"
	"testing"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/proc"
)

// TestCLIChildDiesWithKilledHost: a host killed with SIGKILL while its
// Herdr CLI call hangs leaves no herdr process behind (the CLI child gets a
// parent-death signal).
func TestCLIChildDiesWithKilledHost(t *testing.T) {
	f := newFixtureOn(t, "cli", herdrtest.Options{})
	f.setFault(t, herdrtest.Fault{Hang: true, HangIgnoreTERM: true})
	host := childCmd(t, f, childSettings+`={"transport":"cli","timeout":"60s"}`)
	in, err := host.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(in, "report working\n"); err != nil {
		t.Fatal(err)
	}
	hung := waitForHungCall(t, f)
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	eventually(t, "the hung herdr child of the killed host to die", func() bool { return !proc.Alive(hung.PID) })
}
