package herdr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/proc"
)

func TestReportArgv(t *testing.T) {
	f := newFixtureOn(t, "cli", herdrtest.Options{})
	// A stale socket earlier in the environment: the captured (last) value
	// is the one the child must see, and only once.
	f.env = append(adapter.Env{"HERDR_SOCKET_PATH=/elsewhere.sock", "KEEP=1"}, f.env...)
	a := f.open(t)
	ctx := t.Context()
	for _, r := range []adapter.Report{working, blocked, {State: adapter.StateBlocked, Message: adapter.MessageWorkflowNeedsAttention}, idle} {
		if err := a.Report(ctx, r); err != nil {
			t.Fatalf("Report(%v): %v", r, err)
		}
	}
	if err := a.Release(ctx); err != nil {
		t.Fatalf("Release: %v", err)
	}
	base := []string{"w1:p1", "--source", "custom:panetest", "--agent", "panetest"}
	report := func(rest ...string) []string {
		return append(append([]string{"pane", "report-agent"}, base...), rest...)
	}
	want := [][]string{
		report("--state", "working", "--seq", "N"),
		report("--state", "blocked", "--message", "Waiting for approval", "--seq", "N"),
		report("--state", "blocked", "--message", "Workflow needs attention", "--seq", "N"),
		report("--state", "idle", "--seq", "N"),
		append(append([]string{"pane", "release-agent"}, base...), "--seq", "N"),
	}
	calls := f.calls(t)
	var got [][]string
	var last uint64
	for _, c := range calls {
		got = append(got, withoutSeq(c.Args))
		if c.Exit != 0 {
			t.Errorf("call %q exited %d", c.Args, c.Exit)
		}
		if seq := seqOf(t, c); seq <= last {
			t.Errorf("seq %d after %d", seq, last)
		} else {
			last = seq
		}
		if c.Env["HERDR_SOCKET_PATH"] != f.h.Socket {
			t.Errorf("child HERDR_SOCKET_PATH = %q, want %q", c.Env["HERDR_SOCKET_PATH"], f.h.Socket)
		}
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("argv (-got +want):\n%s", diff)
	}
	info, err := f.h.Agent("w1:p1")
	if err != nil {
		t.Fatal(err)
	}
	if info.Found {
		t.Errorf("after release the pane still has agent %q (%s)", info.Agent, info.AgentStatus)
	}
	if got := f.diags.all(); len(got) != 0 {
		t.Errorf("diagnostics: %v", got)
	}
}

func TestReportUpdatesHerdr(t *testing.T) { forTransports(t, testReportUpdatesHerdr) }

func testReportUpdatesHerdr(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{InView: []string{"w1:p1"}})
	a := f.open(t)
	for _, tt := range []struct {
		r    adapter.Report
		want string
	}{{working, "working"}, {blocked, "blocked"}, {idle, "idle"}} {
		if err := a.Report(t.Context(), tt.r); err != nil {
			t.Fatal(err)
		}
		info, err := f.h.Agent("w1:p1")
		if err != nil {
			t.Fatal(err)
		}
		if !info.Found || info.Agent != "panetest" || string(info.AgentStatus) != tt.want {
			t.Errorf("after %v: agent %q status %q found %v", tt.r, info.Agent, info.AgentStatus, info.Found)
		}
	}
	ex := a.Details()
	for k, want := range map[string]string{"pane": "w1:p1", "source": "custom:panetest", "agent": "panetest", "owner": "owner", "last_state": "idle", "last_op": OpReport.String(), "timeout": "5s", "bin": f.h.Bin, "socket": f.h.Socket, "owner_file": f.drv.StateDir} {
		if ex[k] != want {
			t.Errorf("Explain[%q] = %q, want %q", k, ex[k], want)
		}
	}
	calls := f.calls(t)
	if got, want := ex["last_seq"], mustFlag(t, calls[len(calls)-1], "seq"); got != want {
		t.Errorf("Explain last_seq %s, want %s", got, want)
	}
}

func mustFlag(t *testing.T, c herdrtest.Call, name string) string {
	t.Helper()
	v, ok := c.Flag(name)
	if !ok {
		t.Fatalf("call %q has no --%s", c.Args, name)
	}
	return v
}

func TestReportInvalid(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	a := f.open(t)
	for _, r := range []adapter.Report{{}, {State: 9}, {State: adapter.StateIdle, Message: 200}} {
		if err := a.Report(t.Context(), r); err == nil {
			t.Errorf("Report(%v) = nil, want an error", r)
		}
	}
	if calls := f.calls(t); len(calls) != 0 {
		t.Errorf("invalid reports ran %d calls", len(calls))
	}
}

// TestFaults runs one report against each misbehaviour of the emulated
// Herdr, on each transport (a row with a "" detail for a transport does not
// apply to it).
func TestFaults(t *testing.T) {
	type want struct {
		code   string
		exit   int
		detail string // fragment of the diagnostic; "" skips the transport
	}
	tests := []struct {
		name        string
		fault       herdrtest.Fault
		stop        bool // stop the emulated server
		kind        adapter.Kind
		cli, socket want
		hangs       bool
		settings    string
	}{
		{name: "server not running", fault: herdrtest.Fault{ServerNotRunning: true}, kind: adapter.KindProtocolRejected,
			cli:    want{code: "server_not_running", exit: 1, detail: "report-agent: exit 1: server_not_running"},
			socket: want{code: "server_not_running", exit: -1, detail: "report-agent: socket: server_not_running"}},
		{name: "server stopped", stop: true, kind: adapter.KindProtocolRejected,
			cli:    want{code: "server_not_running", exit: 1, detail: "exit 1: server_not_running"},
			socket: want{code: "server_not_running", exit: -1, detail: "socket: server_not_running"}},
		{name: "protocol mismatch", fault: herdrtest.Fault{ProtocolMismatch: 19}, kind: adapter.KindProtocolRejected,
			cli:    want{code: "protocol_mismatch", exit: 1, detail: "exit 1: protocol_mismatch"},
			socket: want{code: "protocol_mismatch", exit: -1, detail: "socket: protocol_mismatch"}},
		{name: "usage exit 2", fault: herdrtest.Fault{ExitUsage: true}, kind: adapter.KindProtocolRejected,
			cli: want{exit: 2, detail: "exit 2: unrecognised output ("}},
		{name: "garbage", fault: herdrtest.Fault{Garbage: true}, kind: adapter.KindProtocolRejected,
			cli:    want{exit: 1, detail: "exit 1: unrecognised output ("},
			socket: want{exit: -1, detail: "socket: unrecognised response"}},
		{name: "garbage after 1 MiB", fault: herdrtest.Fault{Garbage: true, SpewBytes: 1 << 20}, kind: adapter.KindProtocolRejected,
			cli:    want{exit: 1, detail: "unrecognised output (2097"},
			socket: want{exit: -1, detail: "socket: unrecognised response"}},
		{name: "1 MiB before the response", fault: herdrtest.Fault{SpewBytes: 1 << 20}, kind: adapter.KindProtocolRejected,
			socket: want{exit: -1, detail: "socket: response over 65536 bytes"}},
		{name: "hang", fault: herdrtest.Fault{Hang: true}, kind: adapter.KindTimeout, hangs: true, settings: `{"timeout":"300ms"}`,
			cli:    want{exit: -1, detail: "killed at the deadline"},
			socket: want{exit: -1, detail: "socket: no answer before the deadline"}},
		{name: "hang ignoring SIGTERM", fault: herdrtest.Fault{Hang: true, HangIgnoreTERM: true}, kind: adapter.KindTimeout, hangs: true, settings: `{"timeout":"300ms"}`,
			cli: want{exit: -1, detail: "killed at the deadline"}},
		{name: "slower than the timeout", fault: herdrtest.Fault{SleepMs: 3000}, kind: adapter.KindTimeout, settings: `{"timeout":"300ms"}`,
			cli:    want{exit: -1, detail: "killed at the deadline"},
			socket: want{exit: -1, detail: "socket: no answer before the deadline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, tr := range transports {
				w := tt.cli
				if tr == "socket" {
					w = tt.socket
				}
				if w.detail == "" {
					continue // a fault of the fake CLI only: no subtest
				}
				t.Run(tr, func(t *testing.T) {
					f := newFixtureOn(t, tr, herdrtest.Options{})
					f.set = tt.settings
					if tr == "cli" && tt.kind == adapter.KindTimeout {
						// The test makes the deadline pass (reportPastDeadline):
						// the setting's must not come first.
						f.set = `{"timeout":"60s"}`
					}
					a := f.open(t)
					if tr == "socket" && tt.kind == adapter.KindTimeout {
						// The fault would hold up the claim's ping too; the
						// case is about the report.
						warmUp(t, f, a)
					}
					f.setFault(t, tt.fault)
					if tt.stop {
						if err := f.h.StopServer(); err != nil {
							t.Fatal(err)
						}
					}
					var err error
					if tr == "cli" && tt.kind == adapter.KindTimeout {
						err = reportPastDeadline(t, f, a, tt.hangs)
					} else {
						err = a.Report(t.Context(), working)
					}
					var ce *CallError
					if !errors.As(err, &ce) {
						t.Fatalf("Report = %v, want a *CallError", err)
					}
					if ce.Op != OpReport || ce.Kind != tt.kind || ce.Code != w.code || ce.Exit != w.exit {
						t.Errorf("CallError %+v, want op %s kind %s code %q exit %d", ce, OpReport, tt.kind, w.code, w.exit)
					}
					got := f.diags.all()
					if len(got) != 1 || got[0].Kind != tt.kind || !strings.Contains(got[0].Detail, w.detail) {
						t.Fatalf("diagnostics %v, want one %s saying %q", got, tt.kind, w.detail)
					}
					for _, leak := range []string{"panic", "spew", "\ufffd", "{", "no herdr server"} {
						if strings.Contains(got[0].Detail, leak) || strings.Contains(err.Error(), leak) {
							t.Errorf("output %q leaked into %q / %q", leak, got[0].Detail, err)
						}
					}
					if tt.hangs {
						assertHungCallKilled(t, f)
					}
					if tt.kind == adapter.KindTimeout && (tr == "cli" || tt.hangs) {
						// The abandoned call is in the emulator's log, unfinished
						// (a socket request still sleeping is not logged yet).
						if calls := f.calls(t); len(calls) != 1 || !calls[0].Unfinished || calls[0].Exit != -1 {
							t.Errorf("calls %+v, want the one abandoned call, unfinished", calls)
						}
					}
					if n := a.Details()["diag."+string(tt.kind)]; n != "1" {
						t.Errorf("Explain diag.%s = %q, want 1", tt.kind, n)
					}
				})
			}
		})
	}
}

// reportPastDeadline reports over the CLI and makes the call's deadline
// pass once the fake has started (and, with hangs, hung), never before:
// under load a fake CLI can take longer to start than a short deadline,
// and would then be killed before it logged anything.
func reportPastDeadline(t *testing.T, f *fixture, a *Adapter, hangs bool) error {
	t.Helper()
	expire, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.cli.expire = expire
	done := make(chan error, 1)
	go func() { done <- a.Report(t.Context(), working) }()
	eventually(t, "the fake CLI to start", func() bool {
		calls := f.calls(t)
		return len(calls) == 1 && (calls[0].Hung || !hangs)
	})
	cancel()
	return <-done
}

// warmUp delivers one report (over the socket, that is the claim's ping
// too) and forgets it: later faults then hit the call under test.
func warmUp(t *testing.T, f *fixture, a *Adapter) {
	t.Helper()
	if err := a.Report(t.Context(), idle); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.allCalls(t) {
		f.skip = max(f.skip, c.Arrival)
	}
}

// assertHungCallKilled checks that the hung call was abandoned: for the
// CLI, that the hung fake process is gone (a socket call's connection is
// closed with the call, in this process).
func assertHungCallKilled(t *testing.T, f *fixture) {
	t.Helper()
	calls := f.calls(t)
	if len(calls) != 1 || !calls[0].Hung {
		t.Fatalf("calls %+v, want one hung call", calls)
	}
	if calls[0].Transport != herdrtest.TransportCLI {
		return
	}
	pid := calls[0].PID
	eventually(t, "the hung herdr process to die", func() bool { return !proc.Alive(pid) })
}

func TestFaultsThatDeliver(t *testing.T) {
	tests := []struct {
		name       string
		fault      herdrtest.Fault
		transports []string
	}{
		{name: "slow but in time", fault: herdrtest.Fault{SleepMs: 200}, transports: transports},
		{name: "1 MiB of output", fault: herdrtest.Fault{SpewBytes: 1 << 20}, transports: []string{"cli"}},
		{name: "grandchild holds stdout", fault: herdrtest.Fault{Grandchild: true}, transports: []string{"cli"}},
	}
	for _, tt := range tests {
		for _, tr := range tt.transports {
			t.Run(tt.name+"/"+tr, func(t *testing.T) {
				f := newFixtureOn(t, tr, herdrtest.Options{})
				a := f.open(t)
				f.setFault(t, tt.fault)
				// A call held up past the 5 s deadline (by a grandchild
				// keeping stdout open, say) would fail as a timeout.
				if err := a.Report(t.Context(), working); err != nil {
					t.Fatalf("Report: %v", err)
				}
				if got := f.diags.all(); len(got) != 0 {
					t.Errorf("diagnostics %v", got)
				}
				calls := f.calls(t)
				if len(calls) != 1 || !calls[0].Applied {
					t.Fatalf("calls %+v, want one applied call", calls)
				}
				if pid := calls[0].GrandchildPID; pid > 0 && canKillGroups {
					eventually(t, "the grandchild to be killed", func() bool { return !proc.Alive(pid) })
				}
			})
		}
	}
}

// TestGrandchildKilledAfterFailedCall: a helper the CLI started does not
// outlive the call when the CLI exits non-zero (not only at the deadline).
func TestGrandchildKilledAfterFailedCall(t *testing.T) {
	if !canKillGroups {
		t.Skip("no process groups here")
	}
	f := newFixtureOn(t, "cli", herdrtest.Options{})
	a := f.open(t)
	f.setFault(t, herdrtest.Fault{Grandchild: true, ServerNotRunning: true})
	var ce *CallError
	if err := a.Report(t.Context(), working); !errors.As(err, &ce) || ce.Code != "server_not_running" {
		t.Fatalf("Report = %v, want server_not_running", err)
	}
	calls := f.calls(t)
	if len(calls) != 1 || calls[0].GrandchildPID == 0 {
		t.Fatalf("calls %+v, want one call with a grandchild", calls)
	}
	// SIGKILL was sent before Report returned; wait only for the kernel to
	// finish the process off (a minute's sleep otherwise).
	pid := calls[0].GrandchildPID
	eventually(t, "the grandchild to be killed", func() bool { return !proc.Alive(pid) })
}

// TestCloseWakesWaitForPane: an adapter waiting for the pane's turn,
// held by another adapter's hung call, gives up when it is closed, instead
// of waiting for that call's deadline.
func TestCloseWakesWaitForPane(t *testing.T) { forTransports(t, testCloseWakesWaitForPane) }

func testCloseWakesWaitForPane(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	f.set = `{"timeout":"60s"}`
	old := f.open(t)
	warmUp(t, f, old)
	succ := f.open(t)
	f.set = ""
	f.setFault(t, herdrtest.Fault{Hang: true})
	oldDone := make(chan error, 1)
	go func() { oldDone <- old.Report(context.Background(), working) }()
	waitForHungCall(t, f)
	succDone := make(chan error, 1)
	waiting := make(chan struct{})
	onClaimed(t, succ, func() { close(waiting) })
	go func() { succDone <- succ.Report(context.Background(), idle) }()
	// The successor claims the pane, then waits for the old child's turn to end.
	<-waiting
	if got := succ.Details()["owner"]; got != "owner" {
		t.Fatalf("the waiting successor's owner %q, want owner", got)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := succ.Close(ctx); err != nil {
		t.Fatalf("Close while waiting for another adapter's child = %v", err)
	}
	if err := <-succDone; !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("the waiting Report = %v, want ErrClosed", err)
	}
	if err := old.Close(t.Context()); err != nil { // kills the hung child
		t.Fatal(err)
	}
	if err := <-oldDone; !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("the hung Report = %v, want ErrClosed", err)
	}
	if calls := f.calls(t); len(calls) != 1 {
		t.Errorf("%d calls, want only the hung one", len(calls))
	}
}

func TestFailFirstThenSucceed(t *testing.T) { forTransports(t, testFailFirstThenSucceed) }

func testFailFirstThenSucceed(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	a := f.open(t)
	f.setFault(t, herdrtest.Fault{FailFirst: 2})
	for i := range 2 {
		err := a.Report(t.Context(), working)
		var ce *CallError
		if !errors.As(err, &ce) || ce.Code != "server_unavailable" || ce.Kind != adapter.KindProtocolRejected {
			t.Fatalf("attempt %d: %v, want server_unavailable", i, err)
		}
	}
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatalf("third attempt: %v", err)
	}
	if diff := cmp.Diff(f.diags.kinds(), map[adapter.Kind]int{adapter.KindProtocolRejected: 1}); diff != "" {
		t.Errorf("diagnostics, once per kind and claim (-got +want):\n%s", diff)
	}
	if n := a.Details()["diag.protocol_rejected"]; n != "2" {
		t.Errorf("Explain counter %q, want 2", n)
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "working" {
		t.Errorf("status %q, want working", info.AgentStatus)
	}
}

func TestSpawnFailed(t *testing.T) {
	f := newFixtureOn(t, "cli", herdrtest.Options{})
	a := f.open(t)
	if err := os.Remove(f.h.Bin); err != nil {
		t.Fatal(err)
	}
	err := a.Report(t.Context(), working)
	var ce *CallError
	if !errors.As(err, &ce) || ce.Kind != adapter.KindSpawnFailed || ce.Exit != -1 {
		t.Fatalf("Report = %v, want spawn_failed", err)
	}
	if diff := cmp.Diff(f.diags.kinds(), map[adapter.Kind]int{adapter.KindSpawnFailed: 1}); diff != "" {
		t.Errorf("diagnostics (-got +want):\n%s", diff)
	}
}

// TestReportCancelledAtOnce: the registry cancels the in-flight report at
// Detach; the hung CLI (even one that ignores SIGTERM, with a 60 s timeout)
// is killed and Report returns ctx's error without a diagnostic.
func TestReportCancelledAtOnce(t *testing.T) {
	for _, tc := range []struct {
		transport string
		fault     herdrtest.Fault
	}{
		{"cli", herdrtest.Fault{Hang: true}},
		{"cli", herdrtest.Fault{Hang: true, HangIgnoreTERM: true}},
		{"socket", herdrtest.Fault{Hang: true}},
	} {
		fault := tc.fault
		t.Run(fmt.Sprintf("%s ignore SIGTERM %v", tc.transport, fault.HangIgnoreTERM), func(t *testing.T) {
			f := newFixtureOn(t, tc.transport, herdrtest.Options{})
			f.set = `{"timeout":"60s"}`
			a := f.open(t)
			if tc.transport == "socket" {
				warmUp(t, f, a)
			}
			f.setFault(t, fault)
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- a.Report(ctx, working) }()
			waitForHungCall(t, f)
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("Report = %v, want context.Canceled", err)
			}
			assertHungCallKilled(t, f)
			if got := f.diags.all(); len(got) != 0 {
				t.Errorf("a cancelled report emitted %v", got)
			}
		})
	}
}

func TestReportHonoursContext(t *testing.T) { forTransports(t, testReportHonoursContext) }

func testReportHonoursContext(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	a := f.open(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	// A context that is already cancelled starts nothing.
	if err := a.Report(ctx, idle); !errors.Is(err, context.Canceled) {
		t.Fatalf("Report with a cancelled ctx = %v", err)
	}
	if calls := f.calls(t); len(calls) != 0 {
		t.Errorf("%d calls, want none", len(calls))
	}

	// The caller's own deadline, shorter than the adapter's timeout, is the
	// caller's error: no CallError, no timeout diagnostic.
	f.setFault(t, herdrtest.Fault{Hang: true})
	dctx, dcancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer dcancel()
	var ce *CallError
	if err := a.Report(dctx, working); errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Report past the caller's deadline = %v, want the caller's context.DeadlineExceeded", err)
	}
	if got := f.diags.all(); len(got) != 0 {
		t.Errorf("the caller's deadline emitted %v", got)
	}
	if n := a.Details()["diag.timeout"]; n != "" {
		t.Errorf("the caller's deadline counted as a timeout: %q", n)
	}
}

// waitForHungCall waits until the fake logs a hung call.
func waitForHungCall(t testing.TB, f *fixture) herdrtest.Call {
	t.Helper()
	var hung herdrtest.Call
	eventually(t, "the fake to hang", func() bool {
		for _, c := range f.calls(t) {
			if c.Hung {
				hung = c
				return true
			}
		}
		return false
	})
	return hung
}

func TestCloseKillsInFlight(t *testing.T) { forTransports(t, testCloseKillsInFlight) }

func testCloseKillsInFlight(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	a := f.open(t)
	warmUp(t, f, a)
	f.setFault(t, herdrtest.Fault{Hang: true})
	done := make(chan error, 1)
	go func() { done <- a.Report(context.Background(), working) }()
	waitForHungCall(t, f)
	if err := a.Close(t.Context()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("in-flight Report = %v, want ErrClosed", err)
	}
	assertHungCallKilled(t, f)
	if err := a.Close(t.Context()); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := a.Report(t.Context(), idle); !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Report after Close = %v", err)
	}
	if err := a.Release(t.Context()); !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Release after Close = %v", err)
	}
	if got := a.Details()["owner"]; got != "closed" {
		t.Errorf("owner %q, want closed", got)
	}
}

func TestReleasePaneNotFound(t *testing.T) { forTransports(t, testReleasePaneNotFound) }

func testReleasePaneNotFound(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	f.env = f.env.With(EnvPane, "w9:p9")
	a := f.open(t)
	var ce *CallError
	if err := a.Report(t.Context(), working); !errors.As(err, &ce) || ce.Code != "pane_not_found" {
		t.Fatalf("Report = %v, want pane_not_found", err)
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatalf("Release of a vanished pane = %v, want nil", err)
	}
}

func TestErrorCode(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{name: "server not running", out: `{"id":"cli:request","error":{"code":"server_not_running","message":"no herdr server is running at /s"}}` + "\n", want: "server_not_running"},
		{name: "after noise", out: "warning\n" + `{"id":"","error":{"code":"invalid_request","message":"x"}}`, want: "invalid_request"},
		{name: "unknown code", out: `{"id":"cli:request","error":{"code":"agent_not_found"}}`, want: ""},
		{name: "rust debug", out: `Error: Custom { kind: Other, error: "invalid pane agent state: done" }`, want: ""},
		{name: "empty", out: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorCode([]byte(tt.out)); got != tt.want {
				t.Errorf("errorCode = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReleaseSupersedesInFlightReport: a Release called while a Report of
// the same adapter is stuck on a hung Herdr does not wait for that report's
// deadline (60 s here): the report, withdrawn but already sent, is waited
// for within the release's budget only, then abandoned (an error wrapping
// context.Canceled that says it may still land, no diagnostic), and the
// release is delivered.
func TestReleaseSupersedesInFlightReport(t *testing.T) {
	forTransports(t, testReleaseSupersedesInFlightReport)
}

func testReleaseSupersedesInFlightReport(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	f.set = `{"timeout":"60s"}`
	a := f.open(t)
	warmUp(t, f, a)
	f.setFault(t, herdrtest.Fault{Hang: true})
	done := make(chan error, 1)
	go func() { done <- a.Report(context.Background(), working) }()
	waitForHungCall(t, f)
	f.setFault(t, herdrtest.Fault{})
	if err := a.Release(t.Context()); err != nil {
		t.Fatalf("Release = %v, want it delivered", err)
	}
	var ce *CallError
	if err := <-done; !errors.Is(err, context.Canceled) || errors.As(err, &ce) || !strings.Contains(err.Error(), "may still apply") {
		t.Errorf("the withdrawn Report = %v, want context.Canceled, saying it may still land", err)
	}
	if info, _ := f.h.Agent("w1:p1"); info.Found {
		t.Errorf("after the release the pane shows %+v", info)
	}
	if d := f.diags.all(); len(d) != 0 {
		t.Errorf("diagnostics %v", d)
	}
}
