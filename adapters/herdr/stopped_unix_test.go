//go:build unix

package herdr

import (
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// TestStoppedProcessDoesNotHoldThePane: another host process in the pane
// is stopped (SIGSTOP, as Ctrl-Z does) in the middle of a call. A report
// of this process waits for it no longer than its own timeout, then takes
// the pane with a number above the stopped call's. When the stopped
// process resumes, its call does not land over this one's, it is stale,
// and once this process releases the pane it shows its state again by
// itself.
func TestStoppedProcessDoesNotHoldThePane(t *testing.T) {
	forTransports(t, testStoppedProcessDoesNotHoldThePane)
}

func testStoppedProcessDoesNotHoldThePane(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{InView: []string{"w1:p1"}})
	other := startChild(t, f, childSettings+`={"transport":"`+transport+`","timeout":"8s"}`)
	if got := other.do(t, "report working"); got != "ok" {
		t.Fatalf("other process: %s", got)
	}
	f.setFault(t, herdrtest.Fault{Hang: true})
	if _, err := io.WriteString(other.in, "report idle\n"); err != nil {
		t.Fatal(err)
	}
	hung := waitForHungCall(t, f)
	resume := stopChild(t, other)
	f.setFault(t, herdrtest.Fault{})

	f.set = `{"timeout":"1500ms"}` // a CLI call of a race-built fake on a loaded machine fits
	a := f.open(t)
	if err := a.Report(t.Context(), blocked); err != nil {
		t.Fatalf("Report while a stopped process holds the pane = %v, want it taken", err)
	}
	if got, _ := f.h.HighWater("w1:p1", "custom:panetest"); got <= seqOf(t, hung) {
		t.Errorf("the report that took the pane has seq %d, not above the stopped call's %d", got, seqOf(t, hung))
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "blocked" {
		t.Fatalf("status %q, want blocked", info.AgentStatus)
	}

	resume()
	if !other.out.Scan() || !strings.HasPrefix(other.out.Text(), "err") {
		t.Errorf("the stopped call: %q, want its timeout", other.out.Text())
	}
	resumedIsFenced(t, f, other)

	// This process quits: the other one's state comes back by itself.
	if err := a.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the other process to take the pane back", func() bool {
		info, _ := f.h.Agent("w1:p1")
		return info.AgentStatus == "working"
	})
	other.exit(t)
	var answered []herdrtest.Call
	for _, c := range f.calls(t) {
		if !c.Hung {
			answered = append(answered, c)
		}
	}
	assertIncreasing(t, answered)
}

// stopChild stops c (SIGSTOP, as Ctrl-Z does) and returns the function that
// resumes it (SIGCONT); a test that ends before resuming it resumes it at
// cleanup.
func stopChild(t *testing.T, c *child) (resume func()) {
	t.Helper()
	pid := c.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	})
	return func() {
		t.Helper()
		resumed = true
		if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
	}
}

// resumedIsFenced checks the resumed process after this one took the pane
// from it: its next report is refused, with one stale_owner in all, and
// the pane keeps this process's blocked.
func resumedIsFenced(t *testing.T, f *fixture, other *child) {
	t.Helper()
	if got := other.do(t, "report working"); got != "ok" {
		t.Fatalf("other process: %s", got)
	}
	if other.stale != 1 {
		t.Errorf("the resumed process reported %d stale_owner, want 1", other.stale)
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "blocked" {
		t.Errorf("after the resumed process: status %q, want this one's blocked", info.AgentStatus)
	}
}
