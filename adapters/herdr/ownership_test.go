package herdr

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/internal/proc"
)

// child is another host process in the pane, driven line by line.
type child struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	stale int // stale_owner diagnostics it reported
}

func startChild(t *testing.T, f *fixture, env ...string) *child {
	t.Helper()
	cmd := childCmd(t, f, env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(func() { c.exit(t) })
	return c
}

// do runs one command in the child and returns its answer.
func (c *child) do(t *testing.T, command string) string {
	t.Helper()
	if _, err := io.WriteString(c.in, command+"\n"); err != nil {
		t.Fatalf("child %q: %v", command, err)
	}
	return c.answer(t)
}

// answer returns the child's next answer, counting the stale lines before
// it.
func (c *child) answer(t *testing.T) string {
	t.Helper()
	for c.out.Scan() {
		if line := c.out.Text(); line != "stale" {
			return line
		}
		c.stale++
	}
	t.Fatalf("child: no answer: %v", c.out.Err())
	return ""
}

// exit ends the child without a release and waits for it.
func (c *child) exit(t *testing.T) {
	t.Helper()
	if c.in == nil {
		return
	}
	c.in.Close()
	c.in = nil
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("child: %v", err)
	}
}

func TestNewerProcessFencesOlder(t *testing.T) {
	tests := []struct {
		name    string
		release bool // the newer process releases before it exits
	}{
		{name: "newer one releases", release: true},
		{name: "newer one exits without releasing"},
	}
	for _, tt := range tests {
		forTransports(t, func(t *testing.T, tr string) {
			t.Run(tt.name, func(t *testing.T) {
				f := newFixtureOn(t, tr, herdrtest.Options{InView: []string{"w1:p1"}})
				ctx := t.Context()
				older := f.open(t)
				if err := older.Report(ctx, working); err != nil {
					t.Fatal(err)
				}
				newer := startChild(t, f, childSettings+`={"transport":"`+tr+`"}`)
				if got := newer.do(t, "report blocked"); got != "ok" {
					t.Fatalf("newer process: %s", got)
				}
				sent := len(f.calls(t))

				// Stale: no calls, nil, one stale_owner, and never a release.
				for _, r := range []adapter.Report{idle, working} {
					if err := older.Report(ctx, r); err != nil {
						t.Errorf("stale Report = %v, want nil", err)
					}
				}
				if got := older.Details()["owner"]; got != "stale" {
					t.Errorf("older owner %q, want stale", got)
				}
				if err := older.Release(ctx); err != nil {
					t.Errorf("stale Release = %v, want nil", err)
				}
				if got := len(f.calls(t)); got != sent {
					t.Errorf("the stale process made %d calls", got-sent)
				}
				if diff := cmp.Diff(f.diags.kinds(), map[adapter.Kind]int{adapter.KindStaleOwner: 1}); diff != "" {
					t.Errorf("diagnostics (-got +want):\n%s", diff)
				}
				if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "blocked" {
					t.Errorf("the newer claim was disturbed: status %q", info.AgentStatus)
				}

				// The newer process lets go; the older takes the pane back at
				// its next report.
				if tt.release {
					if got := newer.do(t, "release"); got != "ok" {
						t.Fatalf("newer release: %s", got)
					}
					if info, _ := f.h.Agent("w1:p1"); info.Found {
						t.Fatalf("after the newer release the pane shows %+v", info)
					}
				}
				newer.exit(t)
				if err := older.Report(ctx, idle); err != nil {
					t.Fatal(err)
				}
				if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "idle" {
					t.Errorf("after taking the pane back: status %q, want idle", info.AgentStatus)
				}
				if got := older.Details()["owner"]; got != "owner" {
					t.Errorf("older owner %q, want owner", got)
				}
				if err := older.Release(ctx); err != nil {
					t.Fatal(err)
				}
				if info, _ := f.h.Agent("w1:p1"); info.Found {
					t.Errorf("after the older release the pane shows %+v", info)
				}
				assertIncreasing(t, f.calls(t))
				if hwm, _ := f.h.HighWater("w1:p1", "custom:panetest"); hwm != lastSeq(t, f) {
					t.Errorf("Herdr's high-water %d is not the last call's seq: a call was ignored", hwm)
				}
			})
		})
	}
}

// TestProcessesOnePaneCallOrder runs several host processes at once in one
// pane and checks, in the order the emulated Herdr received their calls,
// that the sequence numbers rise (so Herdr ignored none) and that no
// process released another one's claim.
func TestProcessesOnePaneCallOrder(t *testing.T) { forTransports(t, testProcessesOnePaneCallOrder) }

func testProcessesOnePaneCallOrder(t *testing.T, transport string) {
	const procs = 6
	f := newFixtureOn(t, transport, herdrtest.Options{})
	script := childScript + "=report working,report blocked,report working,report idle,report working,release"
	var cmds []*exec.Cmd
	outs := make([]*strings.Builder, procs)
	for i := range procs {
		// The fake CLI logs the HERDR_* variables it sees: this one names
		// the host process that ran it. A socket call's PID is the host's.
		cmd := childCmd(t, f, script, childSettings+`={"transport":"`+transport+`"}`, hostVar+"="+strconv.Itoa(i), childOvertook+"=1")
		outs[i] = &strings.Builder{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
		if strings.Contains(outs[i].String(), "err ") {
			t.Errorf("process %d: %s", i, outs[i])
		}
	}
	calls := f.calls(t)
	if len(calls) == 0 {
		t.Fatal("no calls")
	}
	for _, c := range calls {
		if string(c.Transport) != transport {
			t.Fatalf("a %s call in a %s test", c.Transport, transport)
		}
	}
	// In the order the emulated Herdr received them, the numbers rise and
	// Herdr ignored no report as stale, but for the calls that another
	// process took the pane from because they had not ended in time (on
	// a loaded machine, a wait of herdr.timeout behind several calls): such
	// a call, landing late, is ignored by Herdr for its lower number. Each take-over
	// (a host says "overtook") excuses one call at most.
	overtakes := 0
	for _, out := range outs {
		overtakes += strings.Count(out.String(), "overtook\n")
	}
	var lastApplied, top uint64
	late, ignored := 0, 0
	for i, c := range calls {
		s := seqOf(t, c)
		if i > 0 && s <= top {
			late++
			t.Logf("call %d %q of host %s: seq %d is not above %d", i, c.Command, hostOf(c), s, top)
		}
		top = max(top, s)
		if c.Command == "pane report-agent" && !c.Applied {
			ignored++
			t.Logf("call %d: Herdr ignored a report of host %s", i, hostOf(c))
		}
		if c.Applied {
			lastApplied = s
		}
	}
	if late > overtakes || ignored > overtakes {
		t.Errorf("%d calls arrived below an earlier number and Herdr ignored %d reports, with %d take-overs", late, ignored, overtakes)
	}
	if hwm, _ := f.h.HighWater("w1:p1", "custom:panetest"); hwm != lastApplied {
		t.Errorf("Herdr's high-water %d is not the last applied call's seq %d", hwm, lastApplied)
	}
	// A process releases only its own claim: every release that took
	// effect follows a report of the same process, with no other process's
	// call between. (A stale process whose newer one has released sends
	// its release into a free pane, where Herdr ignores it.)
	releases := 0
	for i, c := range calls {
		if c.Command != "pane release-agent" || !c.Applied {
			continue
		}
		releases++
		if i == 0 || hostOf(calls[i-1]) != hostOf(c) {
			t.Errorf("call %d: host %s released a pane it did not hold last", i, hostOf(c))
		}
	}
	if releases == 0 {
		t.Error("no release took effect; the last holder's must have")
	}
	if info, _ := f.h.Agent("w1:p1"); info.Found {
		t.Errorf("after every process released: %+v", info)
	}
}

// hostVar names the host process of a call in the fake CLI's log.
const hostVar = "HERDR_PANESTATE_TEST_HOST"

// hostOf names the host process that made c.
func hostOf(c herdrtest.Call) string {
	if c.Transport == herdrtest.TransportCLI {
		return c.Env[hostVar]
	}
	return "pid " + strconv.Itoa(c.PID)
}

func lastSeq(t *testing.T, f *fixture) uint64 {
	t.Helper()
	calls := f.calls(t)
	return seqOf(t, calls[len(calls)-1])
}

// TestCorruptMarkIgnored: a pane file whose mark is far beyond the clock
// (corrupt or planted, here 2^64-2) does not burn the pane: the mark is
// ignored with one invalid_value diagnostic, the reports go out at the
// clock, and the release clears the pane.
func TestCorruptMarkIgnored(t *testing.T) { forTransports(t, testCorruptMarkIgnored) }

func testCorruptMarkIgnored(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	const T uint64 = 1_800_000_000_000
	f.drv.Clock = (&testClock{now: time.UnixMilli(int64(T))}).Now
	plantRecord(t, paneFilePath(f), math.MaxUint64-1, false)
	a := f.open(t)
	for _, r := range []adapter.Report{working, idle, blocked} {
		if err := a.Report(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for _, c := range f.calls(t) {
		got = append(got, seqOf(t, c))
	}
	if diff := cmp.Diff(got, []uint64{T, T + 1, T + 2, T + 3}); diff != "" {
		t.Errorf("seqs (-got +want):\n%s", diff)
	}
	var corrupt []adapter.Diagnostic
	for _, d := range f.diags.all() {
		if strings.Contains(d.Detail, "18446744073709551614") {
			corrupt = append(corrupt, d)
		}
	}
	if len(corrupt) != 1 || corrupt[0].Kind != adapter.KindInvalidValue {
		t.Errorf("diagnostics %v, want one invalid_value naming the corrupt mark", f.diags.all())
	}
	if info, _ := f.h.Agent("w1:p1"); info.Found {
		t.Errorf("after the release the pane shows %+v: burnt", info)
	}
	if got := readSeqFile(t, paneFilePath(f)); got != T+3 {
		t.Errorf("file holds %d, want the last number sent, %d", got, T+3)
	}
}

func TestReleaseBudget(t *testing.T) {
	t.Run("hung socket", func(t *testing.T) {
		f := newFixtureOn(t, "socket", herdrtest.Options{})
		f.set = `{"timeout":"60s"}` // the release's budget, not this, must end it
		a := f.open(t)
		warmUp(t, f, a)
		f.setFault(t, herdrtest.Fault{Hang: true})
		var ce *CallError
		if err := a.Release(t.Context()); !errors.As(err, &ce) || ce.Kind != adapter.KindTimeout || ce.Op != OpRelease {
			t.Fatalf("Release = %v, want a release timeout", err)
		}
	})
	t.Run("hung CLI ignoring SIGTERM", func(t *testing.T) {
		f := newFixtureOn(t, "cli", herdrtest.Options{})
		f.set = `{"timeout":"60s"}` // the release's budget, not this, must end it
		a := f.open(t)
		if err := a.Report(t.Context(), working); err != nil {
			t.Fatal(err)
		}
		if got := a.Details()["release_timeout"]; got != MaxReleaseTimeout.String() {
			t.Errorf("release_timeout %q, want %s", got, MaxReleaseTimeout)
		}
		f.setFault(t, herdrtest.Fault{Hang: true, HangIgnoreTERM: true})
		err := a.Release(t.Context())
		var ce *CallError
		if !errors.As(err, &ce) || ce.Kind != adapter.KindTimeout || ce.Op != OpRelease {
			t.Fatalf("Release = %v, want a release timeout", err)
		}
		calls := f.calls(t)
		pid := calls[len(calls)-1].PID
		eventually(t, "the hung herdr process to die", func() bool { return !proc.Alive(pid) })
	})
	// A slow Herdr, 1 s per request, with the claim's first report (on the
	// socket: its ping) in flight when the host quits: the report is
	// cancelled, and the release, which spends no ping, still arrives.
	forTransports(t, func(t *testing.T, tr string) {
		t.Run("slow Herdr, 1 s per call", func(t *testing.T) {
			f := newFixtureOn(t, tr, herdrtest.Options{})
			a := f.open(t)
			f.setFault(t, herdrtest.Fault{SleepMs: 1000})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- a.Report(ctx, working) }()
			if _, err := f.h.WaitCalls(t.Context(), func(calls []herdrtest.Call) bool { return len(calls) > 0 || tr == "socket" }); err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("the cancelled report = %v", err)
			}
			if err := a.Release(t.Context()); err != nil {
				t.Fatalf("Release = %v, want it delivered", err)
			}
			received := false
			for _, c := range f.calls(t) {
				if c.Command == "pane release-agent" && c.Arrival > 0 && c.Code == "" {
					received = true
				}
			}
			if !received {
				t.Errorf("calls %+v, want the release received", f.calls(t))
			}
		})
	})
	t.Run("slow Herdr after a failed connection", func(t *testing.T) {
		f := newFixtureOn(t, "socket", herdrtest.Options{})
		a := f.open(t)
		if err := a.Report(t.Context(), working); err != nil {
			t.Fatal(err)
		}
		f.setFault(t, herdrtest.Fault{Garbage: true}) // the next call must ping again
		if err := a.Report(t.Context(), idle); err == nil {
			t.Fatal("a report answered with garbage succeeded")
		}
		f.setFault(t, herdrtest.Fault{SleepMs: 1000})
		if err := a.Release(t.Context()); err != nil {
			t.Fatalf("Release = %v, want it delivered", err)
		}
		if info, _ := f.h.Agent("w1:p1"); info.Found {
			t.Errorf("after release the pane shows %+v", info)
		}
	})
	t.Run("short timeout setting bounds it", func(t *testing.T) {
		f := newFixture(t, herdrtest.Options{})
		f.set = `{"timeout":"200ms"}`
		a := f.open(t)
		if got := a.Details()["release_timeout"]; got != "200ms" {
			t.Errorf("release_timeout %q, want 200ms", got)
		}
	})
}

func TestOpenRefresh(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	tests := []struct {
		name    string
		setting string
		want    time.Duration
		clamped bool
		bad     bool
	}{
		{name: "default", want: DefaultRefresh},
		{name: "null", setting: `null`, want: DefaultRefresh},
		{name: "duration", setting: `"5s"`, want: 5 * time.Second},
		{name: "milliseconds", setting: `2000`, want: 2 * time.Second},
		{name: "zero turns it off", setting: `0`, want: 0},
		{name: "zero string turns it off", setting: `"0s"`, want: 0},
		{name: "too short", setting: `"100ms"`, want: MinRefresh, clamped: true},
		{name: "negative", setting: `-1`, want: MinRefresh, clamped: true},
		{name: "too long", setting: `"1h"`, want: MaxRefresh, clamped: true},
		{name: "not a duration", setting: `"often"`, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &diags{}
			p := f.params()
			p.Diagnose = d.add
			if tt.setting != "" {
				p.Settings = []byte(`{"refresh":` + tt.setting + `}`)
			}
			a, err := f.drv.open(t.Context(), p)
			if tt.bad {
				if err == nil || !strings.Contains(err.Error(), "refresh") {
					t.Fatalf("Open error %v; want one about refresh", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close(t.Context())
			if got := a.RefreshInterval(working); got != tt.want {
				t.Errorf("RefreshInterval = %v, want %v", got, tt.want)
			}
			want := map[adapter.Kind]int{}
			if tt.clamped {
				want[adapter.KindInvalidValue] = 1
			}
			if diff := cmp.Diff(d.kinds(), want); diff != "" {
				t.Errorf("diagnostics (-got +want):\n%s", diff)
			}
		})
	}
}

func TestRefreshIntervalStopsWhenRetiredOrClosed(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	old := f.open(t)
	if err := old.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	if got := optional.RefreshInterval(old, working); got != DefaultRefresh {
		t.Errorf("holder: %v, want %v", got, DefaultRefresh)
	}
	succ := f.open(t)
	if err := succ.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	if got := optional.RefreshInterval(old, working); got != 0 {
		t.Errorf("stale: %v, want 0", got)
	}
	if err := succ.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := optional.RefreshInterval(succ, working); got != 0 {
		t.Errorf("closed: %v, want 0", got)
	}
}

// TestRefreshRestoresWipedState is what the registry's refresh does after a
// Herdr server restart: the same report again, with a fresh number, puts
// the state back; a repeated idle leaves done as it is.
func TestRefreshRestoresWipedState(t *testing.T) { forTransports(t, testRefreshRestoresWipedState) }

func testRefreshRestoresWipedState(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	a := f.open(t)
	ctx := t.Context()
	if err := a.Report(ctx, working); err != nil {
		t.Fatal(err)
	}
	if err := f.h.StopServer(); err != nil {
		t.Fatal(err)
	}
	if err := f.h.StartServer(); err != nil {
		t.Fatal(err)
	}
	if info, _ := f.h.Agent("w1:p1"); info.Found {
		t.Fatalf("the restarted server still shows %+v", info)
	}
	if err := a.Report(ctx, working); err != nil { // the refresh
		t.Fatal(err)
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "working" {
		t.Errorf("after the refresh: status %q, want working", info.AgentStatus)
	}
	// The pane is not in view: working then idle shows done, and a
	// refreshed idle keeps it.
	if err := a.Report(ctx, idle); err != nil {
		t.Fatal(err)
	}
	if err := a.Report(ctx, idle); err != nil { // the refresh
		t.Fatal(err)
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "done" {
		t.Errorf("after a refreshed idle: status %q, want done", info.AgentStatus)
	}
	assertIncreasing(t, f.calls(t))
}

// TestWaitForAnotherProcessesCall: while another live process's call is
// in flight (the pane file names it, with a deadline an hour away: a
// process that does not move), a report waits at most its own timeout,
// then takes the pane from it with a number above the other's; ctx ends
// the wait at once.
func TestWaitForAnotherProcessesCall(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	f.set = `{"timeout":"200ms"}`
	a := f.open(t)
	// The wait is what is tested: the calls themselves get a minute, so
	// that a loaded machine does not time them out.
	setCallBudget(t, time.Minute)
	if err := a.Report(t.Context(), working); err != nil { // makes the directory
		t.Fatal(err)
	}
	// An hour ahead of the clock, so that the clock does not pass it on a
	// loaded machine (it did by 85 ms at load 24 with a second ahead).
	mark := lastSeq(t, f) + uint64(time.Hour/time.Millisecond)
	plantRecord(t, paneFilePath(f), mark, true)
	// Bounded, so that a wait for the other call's deadline (an hour)
	// fails here rather than hanging the test.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := a.Report(ctx, blocked); err != nil {
		t.Fatalf("Report while another process's call does not move = %v, want it taken over at its own timeout", err)
	}
	if got := lastSeq(t, f); got != mark+1 {
		t.Errorf("the report that took the pane has seq %d, want %d", got, mark+1)
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "blocked" {
		t.Errorf("status %q, want blocked", info.AgentStatus)
	}
	if got := a.Details()["owner"]; got != "owner" {
		t.Errorf("owner %q, want owner", got)
	}

	// With a 60 s timeout, the caller's deadline ends the wait first.
	plantRecord(t, paneFilePath(f), mark+10, true)
	f.set = `{"timeout":"60s"}`
	b := f.open(t)
	ctx, cancel = context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	var ce *CallError
	if err := b.Report(ctx, working); errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Report past the caller's deadline while the pane is held = %v", err)
	}
	if got := len(f.calls(t)); got != 2 {
		t.Errorf("%d calls, want 2", got)
	}
	// The holder that did not move is bypassed with one diagnostic, not
	// one per call.
	if d := f.diags.all(); len(d) != 1 || d[0].Kind != adapter.KindTimeout || !strings.Contains(d[0].Detail, "does not move") {
		t.Errorf("diagnostics %v, want one timeout saying the holder does not move", d)
	}
}

// TestCloseEndsWaitForAnotherProcess: Close does not wait for another
// process's call on the pane.
func TestCloseEndsWaitForAnotherProcess(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	f.set = `{"timeout":"60s"}`
	a := f.open(t)
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	plantRecord(t, paneFilePath(f), lastSeq(t, f)+1, true)
	waiting := make(chan struct{})
	onClaimed(t, a, func() { close(waiting) })
	done := make(chan error, 1)
	go func() { done <- a.Report(context.Background(), idle) }()
	<-waiting
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := a.Close(ctx); err != nil {
		t.Fatalf("Close while a report waits for the pane = %v", err)
	}
	if err := <-done; !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("the waiting Report = %v, want ErrClosed", err)
	}
}

// TestReleaseAfterPaneFileLost: a pane file that lost its record (corrupt,
// removed) names no holder; the release still goes out.
func TestReleaseAfterPaneFileLost(t *testing.T) { forTransports(t, testReleaseAfterPaneFileLost) }

func testReleaseAfterPaneFileLost(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	a := f.open(t)
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	path := paneFilePath(f)
	if err := os.WriteFile(path, []byte("junk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if info, _ := f.h.Agent("w1:p1"); info.Found {
		t.Errorf("after release the pane shows %+v", info)
	}
	if d := f.diags.kinds(); d[adapter.KindPersistFailed] != 1 {
		t.Errorf("diagnostics %v, want one persist_failed for the corrupt file", f.diags.all())
	}
	assertIncreasing(t, f.calls(t))
}

// TestOlderAdapterTakesThePaneBack: two registries of one process on one
// pane. While the newer adapter holds the pane the older one sends
// nothing, says so once, and does not own the pane; once the newer one has
// released it and is closed (its registry detached), the older one sends
// its last report by itself, without waiting for its next change.
func TestOlderAdapterTakesThePaneBack(t *testing.T) {
	forTransports(t, testOlderAdapterTakesThePaneBack)
}

func testOlderAdapterTakesThePaneBack(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{InView: []string{"w1:p1"}})
	ctx := t.Context()
	older := f.open(t)
	back := make(chan struct{}, 1)
	onTakeBack(t, older, func() { back <- struct{}{} })
	if err := older.Report(ctx, working); err != nil {
		t.Fatal(err)
	}
	newer := f.open(t)
	if err := newer.Report(ctx, idle); err != nil {
		t.Fatal(err)
	}
	sent := len(f.calls(t))
	if err := older.Report(ctx, blocked); err != nil {
		t.Fatalf("stale Report = %v, want nil", err)
	}
	if got := len(f.calls(t)); got != sent {
		t.Errorf("the stale adapter made %d calls", got-sent)
	}
	if older.OwnsPane() || older.Details()["owner"] != "stale" {
		t.Errorf("stale adapter: OwnsPane %v, owner %q", older.OwnsPane(), older.Details()["owner"])
	}
	select {
	case <-back:
		t.Fatal("the older adapter took the pane back while the newer one held it")
	default:
	}
	if err := newer.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := newer.Close(ctx); err != nil {
		t.Fatal(err)
	}
	<-back
	if got := len(f.calls(t)); got != sent+2 {
		t.Errorf("%d calls after the newer adapter's report, want 2: its release and the older one's take-back", got-sent)
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "blocked" {
		t.Errorf("after the newer adapter let go: status %q, want the older one's blocked", info.AgentStatus)
	}
	if !older.OwnsPane() || older.Details()["owner"] != "owner" {
		t.Errorf("older adapter: OwnsPane %v, owner %q; want it to hold the pane", older.OwnsPane(), older.Details()["owner"])
	}
	if got := f.diags.kinds()[adapter.KindStaleOwner]; got != 1 {
		t.Errorf("%d stale_owner diagnostics, want 1", got)
	}
	assertIncreasing(t, f.calls(t))
}

// TestReleaseDoesNotOvertakeTheHoldersCall: another live process took the
// pane from this one and its call is still in flight, within its
// deadline, when this process quits. The release waits for that call as
// long as its own budget allows and is then refused: it is never sent
// over the newer holder's call (a release with a higher number would
// clear that process's state, and its call, landing later with a lower
// number, would be ignored by Herdr).
func TestReleaseDoesNotOvertakeTheHoldersCall(t *testing.T) {
	forTransports(t, testReleaseDoesNotOvertakeTheHoldersCall)
}

func testReleaseDoesNotOvertakeTheHoldersCall(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	a := f.open(t)
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	// An hour ahead of the clock, so that the clock does not pass it on a
	// loaded machine.
	mark := lastSeq(t, f) + uint64(time.Hour/time.Millisecond)
	plantRecord(t, paneFilePath(f), mark, true)
	if err := a.Release(t.Context()); err != nil {
		t.Fatalf("Release while a newer holder's call is in flight = %v, want it refused (nil)", err)
	}
	for _, c := range f.calls(t) {
		if c.Command == "pane release-agent" {
			t.Errorf("a release (seq %d) was sent over the newer holder's call in flight", seqOf(t, c))
		}
	}
	if got := f.diags.kinds()[adapter.KindStaleOwner]; got != 1 {
		t.Errorf("%d stale_owner diagnostics, want 1", got)
	}
}
