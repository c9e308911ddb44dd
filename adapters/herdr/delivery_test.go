package herdr

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

func TestReportArgv(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
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

func TestReportUpdatesHerdr(t *testing.T) {
	f := newFixture(t, herdrtest.Options{InView: []string{"w1:p1"}})
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
	ex := a.Explain()
	for k, want := range map[string]string{"pane": "w1:p1", "source": "custom:panetest", "agent": "panetest", "lease": "holder", "last_state": "idle", "last_op": OpReport, "timeout": "5s", "bin": f.h.Bin, "socket": f.h.Socket, "persist_dir": f.drv.StateDir} {
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

// TestFaults runs one report against each misbehaviour of the fake CLI.
func TestFaults(t *testing.T) {
	tests := []struct {
		name     string
		fault    herdrtest.Fault
		stop     bool // stop the emulated server
		kind     adapter.Kind
		code     string
		exit     int
		detail   string // fragment of the diagnostic
		hangs    bool
		settings string
	}{
		{name: "server not running", fault: herdrtest.Fault{ServerNotRunning: true}, kind: adapter.KindProtocolRejected, code: "server_not_running", exit: 1, detail: "report-agent: exit 1: server_not_running"},
		{name: "server stopped", stop: true, kind: adapter.KindProtocolRejected, code: "server_not_running", exit: 1, detail: "exit 1: server_not_running"},
		{name: "protocol mismatch", fault: herdrtest.Fault{ProtocolMismatch: 19}, kind: adapter.KindProtocolRejected, code: "protocol_mismatch", exit: 1, detail: "exit 1: protocol_mismatch"},
		{name: "usage exit 2", fault: herdrtest.Fault{ExitUsage: true}, kind: adapter.KindProtocolRejected, exit: 2, detail: "exit 2: unrecognised output ("},
		{name: "garbage", fault: herdrtest.Fault{Garbage: true}, kind: adapter.KindProtocolRejected, exit: 1, detail: "exit 1: unrecognised output ("},
		{name: "garbage after 1 MiB", fault: herdrtest.Fault{Garbage: true, SpewBytes: 1 << 20}, kind: adapter.KindProtocolRejected, exit: 1, detail: "unrecognised output (2097"},
		{name: "hang", fault: herdrtest.Fault{Hang: true}, kind: adapter.KindTimeout, exit: -1, detail: "killed at the deadline", hangs: true, settings: `{"timeout":"300ms"}`},
		{name: "hang ignoring SIGTERM", fault: herdrtest.Fault{Hang: true, HangIgnoreTERM: true}, kind: adapter.KindTimeout, exit: -1, detail: "killed at the deadline", hangs: true, settings: `{"timeout":"300ms"}`},
		{name: "slower than the timeout", fault: herdrtest.Fault{SleepMs: 3000}, kind: adapter.KindTimeout, exit: -1, detail: "killed at the deadline", settings: `{"timeout":"300ms"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, herdrtest.Options{})
			f.set = tt.settings
			a := f.open(t)
			f.setFault(t, tt.fault)
			if tt.stop {
				if err := f.h.StopServer(); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			err := a.Report(t.Context(), working)
			elapsed := time.Since(start)
			var ce *CallError
			if !errors.As(err, &ce) {
				t.Fatalf("Report = %v, want a *CallError", err)
			}
			if ce.Op != OpReport || ce.Kind != tt.kind || ce.Code != tt.code || ce.Exit != tt.exit {
				t.Errorf("CallError %+v, want op %s kind %s code %q exit %d", ce, OpReport, tt.kind, tt.code, tt.exit)
			}
			got := f.diags.all()
			if len(got) != 1 || got[0].Kind != tt.kind || !strings.Contains(got[0].Detail, tt.detail) {
				t.Fatalf("diagnostics %v, want one %s saying %q", got, tt.kind, tt.detail)
			}
			for _, leak := range []string{"panic", "spew", "\ufffd", "{", "no herdr server"} {
				if strings.Contains(got[0].Detail, leak) || strings.Contains(err.Error(), leak) {
					t.Errorf("child output %q leaked into %q / %q", leak, got[0].Detail, err)
				}
			}
			if tt.kind == adapter.KindTimeout && elapsed > 10*time.Second {
				t.Errorf("a %s timeout took %v", a.timeout, elapsed)
			}
			if tt.hangs {
				assertHungCallKilled(t, f)
			}
			if tt.kind == adapter.KindTimeout {
				// The killed call is in the emulator's log, unfinished.
				if calls := f.calls(t); len(calls) != 1 || !calls[0].Unfinished || calls[0].Exit != -1 {
					t.Errorf("calls %+v, want the one killed call, unfinished", calls)
				}
			}
			if n := a.Explain()["diag."+string(tt.kind)]; n != "1" {
				t.Errorf("Explain diag.%s = %q, want 1", tt.kind, n)
			}
		})
	}
}

// assertHungCallKilled checks that the hung fake process is gone.
func assertHungCallKilled(t *testing.T, f *fixture) {
	t.Helper()
	calls := f.calls(t)
	if len(calls) != 1 || !calls[0].Hung {
		t.Fatalf("calls %+v, want one hung call", calls)
	}
	pid := calls[0].PID
	eventually(t, "the hung herdr process to die", func() bool { return !processAlive(pid) })
}

func TestFaultsThatDeliver(t *testing.T) {
	tests := []struct {
		name  string
		fault herdrtest.Fault
	}{
		{name: "slow but in time", fault: herdrtest.Fault{SleepMs: 200}},
		{name: "1 MiB of output", fault: herdrtest.Fault{SpewBytes: 1 << 20}},
		{name: "grandchild holds stdout", fault: herdrtest.Fault{Grandchild: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, herdrtest.Options{})
			a := f.open(t)
			f.setFault(t, tt.fault)
			start := time.Now()
			if err := a.Report(t.Context(), working); err != nil {
				t.Fatalf("Report: %v", err)
			}
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("Report took %v", elapsed)
			}
			if got := f.diags.all(); len(got) != 0 {
				t.Errorf("diagnostics %v", got)
			}
			calls := f.calls(t)
			if len(calls) != 1 || calls[0].Exit != 0 {
				t.Fatalf("calls %+v, want one successful call", calls)
			}
			if pid := calls[0].GrandchildPID; pid > 0 && canKillGroups {
				eventually(t, "the grandchild to be killed", func() bool { return !processAlive(pid) })
			}
		})
	}
}

// TestGrandchildKilledAfterFailedCall: a helper the CLI started does not
// outlive the call when the CLI exits non-zero (not only at the deadline).
func TestGrandchildKilledAfterFailedCall(t *testing.T) {
	if !canKillGroups {
		t.Skip("no process groups here")
	}
	f := newFixture(t, herdrtest.Options{})
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
	eventually(t, "the grandchild to be killed", func() bool { return !processAlive(pid) })
}

// TestCloseWakesWaitForPane: an adapter waiting for the pane's child slot,
// held by another adapter's hung call, gives up when it is closed, instead
// of waiting for that call's deadline.
func TestCloseWakesWaitForPane(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	f.set = `{"timeout":"60s"}`
	old := f.open(t)
	succ := f.open(t)
	f.set = ""
	f.setFault(t, herdrtest.Fault{Hang: true})
	oldDone := make(chan error, 1)
	go func() { oldDone <- old.Report(context.Background(), working) }()
	waitForHungCall(t, f)
	succDone := make(chan error, 1)
	go func() { succDone <- succ.Report(context.Background(), idle) }()
	// The successor claims the pane, then waits for the old child's slot.
	eventually(t, "the successor to claim the pane", func() bool { return succ.Explain()["lease"] == "holder" })

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

func TestFailFirstThenSucceed(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
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
	if n := a.Explain()["diag.protocol_rejected"]; n != "2" {
		t.Errorf("Explain counter %q, want 2", n)
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "working" {
		t.Errorf("status %q, want working", info.AgentStatus)
	}
}

func TestSpawnFailed(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
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

func TestReportHonoursContext(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	a := f.open(t)
	f.setFault(t, herdrtest.Fault{Hang: true})
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

	// A context that is already cancelled starts nothing.
	f.setFault(t, herdrtest.Fault{})
	if err := a.Report(ctx, idle); !errors.Is(err, context.Canceled) {
		t.Fatalf("Report with a cancelled ctx = %v", err)
	}
	if calls := f.calls(t); len(calls) != 1 {
		t.Errorf("%d calls, want only the hung one", len(calls))
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
	if n := a.Explain()["diag.timeout"]; n != "" {
		t.Errorf("the caller's deadline counted as a timeout: %q", n)
	}
}

// waitForHungCall waits until the fake logs a hung call.
func waitForHungCall(t *testing.T, f *fixture) herdrtest.Call {
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

func TestCloseKillsInFlight(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	a := f.open(t)
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
	if got := a.Explain()["lease"]; got != "closed" {
		t.Errorf("lease %q, want closed", got)
	}
}

func TestReleasePaneNotFound(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
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

func TestBoundedBuffer(t *testing.T) {
	b := boundedBuffer{limit: 10}
	for _, s := range []string{"0123", "456789ab", "cdef"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if string(b.buf) != "0123456789" || b.total != 16 {
		t.Errorf("kept %q of %d bytes", b.buf, b.total)
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
