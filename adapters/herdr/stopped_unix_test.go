//go:build unix

package herdr

import (
	"errors"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/claim"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// TestStoppedProcessDoesNotHoldThePane: another host process in the pane
// is stopped (SIGSTOP, as Ctrl-Z does) in the middle of a call. A report
// of this process waits for it no longer than its own timeout, then takes
// the pane with a number above the stopped call's. When the stopped
// process resumes, its call does not land over this one's, it is fenced,
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

// TestStoppedHoldingThePaneFileIsTakenOver: another host process in the
// pane is stopped (SIGSTOP) in the moment it holds the pane file's lock,
// after reading the pane's number and before writing its own ("read"), or
// after writing it, just before letting the lock go ("written"). A report
// of this process still goes through: once its wait has passed it puts a
// fresh pane file in place, with a number above any the stopped process
// took. Resumed, the stopped process sends nothing of its call ("read":
// it finds its file replaced) or sends it with its lower number, which
// Herdr ignores ("written"); either way the pane keeps this process's
// state, the stopped one is fenced, and the numbers Herdr took are in
// arrival order.
func TestStoppedHoldingThePaneFileIsTakenOver(t *testing.T) {
	for _, stage := range []string{"read", "written"} {
		t.Run(stage, func(t *testing.T) {
			forTransports(t, func(t *testing.T, transport string) {
				testStoppedHoldingThePaneFile(t, transport, stage)
			})
		})
	}
}

func testStoppedHoldingThePaneFile(t *testing.T, transport, stage string) {
	f := newFixtureOn(t, transport, herdrtest.Options{InView: []string{"w1:p1"}})
	other := startChild(t, f, childSettings+`={"transport":"`+transport+`","timeout":"8s"}`)
	if got := other.do(t, "report working"); got != "ok" {
		t.Fatalf("other process: %s", got)
	}
	if got := other.do(t, "hold "+stage); got != "ok" {
		t.Fatalf("other process: %s", got)
	}
	if got := other.do(t, "report idle"); got != "locked" {
		t.Fatalf("other process: %q, want it to hold the pane file's lock", got)
	}
	resume := stopChild(t, other)

	f.set = `{"timeout":"1500ms"}` // a CLI call of a race-built fake on a loaded machine fits
	a := f.open(t)
	if err := a.Report(t.Context(), blocked); err != nil {
		t.Fatalf("Report while a stopped process holds the pane file's lock = %v, want the file taken over", err)
	}
	ours, _ := f.h.HighWater("w1:p1", "custom:panetest")
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "blocked" {
		t.Fatalf("status %q, want blocked", info.AgentStatus)
	}
	before := len(f.calls(t))

	resume()
	if _, err := io.WriteString(other.in, "go\n"); err != nil {
		t.Fatal(err)
	}
	if got := other.answer(t); got != "ok" {
		t.Errorf("the stopped call: %q, want ok (sent and ignored, or refused)", got)
	}
	late := f.calls(t)[before:]
	if want := map[string]int{"read": 0, "written": 1}[stage]; len(late) != want {
		t.Errorf("the resumed process made %d calls, want %d", len(late), want)
	}
	for _, c := range late {
		if c.Applied || seqOf(t, c) >= ours {
			t.Errorf("the resumed process's call (seq %d, applied %v) was not refused below this one's %d", seqOf(t, c), c.Applied, ours)
		}
	}
	resumedIsFenced(t, f, other)
	if got := other.do(t, "explain lease"); got != "fenced" {
		t.Errorf("the resumed process's lease: %q, want fenced", got)
	}
	other.exit(t)
	var applied []herdrtest.Call
	for _, c := range f.calls(t) {
		if c.Applied {
			applied = append(applied, c)
		}
	}
	assertIncreasing(t, applied)
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

// TestStuckPaneFileSaysSo: a wait that ends because the pane file's lock
// stayed held by a process that does not move (claim.StuckError: where the
// file is not taken over, Windows) is a timeout whose diagnostic and error
// say so, not "another call on the pane did not finish in time"; and its
// error still matches claim.ErrBusy. So does a call refused because
// another process took the pane file over and this one could not open the
// file put in its place (claim.ReopenError).
func TestStuckPaneFileSaysSo(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{name: "lock held by a stopped process", err: &claim.StuckError{Path: "/state/pane", Held: 2 * time.Second},
			want: "the pane file's lock is held by a process that does not move (stopped?)"},
		{name: "taken over, not opened again", err: &claim.ReopenError{Path: "/state/pane", Err: syscall.EMFILE},
			want: "the pane file was taken over by another process and could not be opened again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureOn(t, "socket", herdrtest.Options{})
			a := f.open(t)
			err := a.waitFailed(t.Context(), OpReport, tt.err)
			var ce *CallError
			if !errors.As(err, &ce) || ce.Kind != adapter.KindTimeout || !errors.Is(err, claim.ErrBusy) {
				t.Fatalf("waitFailed = %v, want a timeout CallError wrapping claim.ErrBusy", err)
			}
			if ce.Detail() != tt.want {
				t.Errorf("Detail = %q, want %q", ce.Detail(), tt.want)
			}
			got := f.diags.all()
			if len(got) != 1 || got[0].Kind != adapter.KindTimeout || !strings.Contains(got[0].Detail, tt.want) {
				t.Errorf("diagnostics %+v, want one timeout saying %q", got, tt.want)
			}
		})
	}
}
