package herdr

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/filelock"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/internal/owner"
)

// testClock is a settable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// assertIncreasing checks that the calls' --seq values strictly increase.
func assertIncreasing(t *testing.T, calls []herdrtest.Call) []uint64 {
	t.Helper()
	var seqs []uint64
	for i, c := range calls {
		s := seqOf(t, c)
		if i > 0 && s <= seqs[i-1] {
			t.Errorf("call %d %q: seq %d is not above %d", i, c.Command, s, seqs[i-1])
		}
		seqs = append(seqs, s)
	}
	return seqs
}

func TestSuccessorRetiresPredecessor(t *testing.T) { forTransports(t, testSuccessorRetiresPredecessor) }

func testSuccessorRetiresPredecessor(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	ctx := t.Context()
	old := f.open(t)
	if err := old.Report(ctx, working); err != nil {
		t.Fatal(err)
	}
	succ := f.open(t) // a settings reload opens the successor first
	if err := old.Report(ctx, blocked); err != nil {
		t.Fatalf("the holder reports until the successor claims: %v", err)
	}
	if err := succ.Report(ctx, idle); err != nil {
		t.Fatal(err)
	}
	if got := len(f.calls(t)); got != 3 {
		t.Fatalf("%d calls, want 3", got)
	}
	// Late callbacks of the predecessor: no I/O, nil, one stale_owner.
	if err := old.Report(ctx, working); err != nil {
		t.Errorf("stale Report = %v, want nil", err)
	}
	if err := old.Release(ctx); err != nil {
		t.Errorf("stale Release = %v, want nil", err)
	}
	if err := old.Report(ctx, blocked); err != nil {
		t.Errorf("stale Report = %v, want nil", err)
	}
	if got := len(f.calls(t)); got != 3 {
		t.Errorf("a stale adapter ran %d calls", got-3)
	}
	if diff := cmp.Diff(f.diags.kinds(), map[adapter.Kind]int{adapter.KindStaleOwner: 1}); diff != "" {
		t.Errorf("diagnostics (-got +want):\n%s", diff)
	}
	if got := old.Details(); got["owner"] != "stale" || got["diag.stale_owner"] != "3" {
		t.Errorf("predecessor Explain owner %q stale %q", got["owner"], got["diag.stale_owner"])
	}
	if err := old.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := succ.Details()["owner"]; got != "owner" {
		t.Errorf("closing the predecessor left the successor %q", got)
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus == "unknown" || !info.Found {
		t.Errorf("the pane lost its agent: %+v", info)
	}
	if err := succ.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if got := succ.Details()["owner"]; got != "free" {
		t.Errorf("after Release the lease is %q", got)
	}
	calls := f.calls(t)
	assertIncreasing(t, calls)
	if len(calls) != 4 || calls[3].Command != "pane release-agent" {
		t.Fatalf("calls %v, want 3 reports and one release", calls)
	}
	if info, _ := f.h.Agent("w1:p1"); info.Found {
		t.Errorf("after release the pane shows %+v", info)
	}
}

func TestSuccessorWaitsForInFlightCall(t *testing.T) {
	forTransports(t, testSuccessorWaitsForInFlightCall)
}

func testSuccessorWaitsForInFlightCall(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	f.set = `{"timeout":"1s"}`
	old := f.open(t)
	warmUp(t, f, old)
	f.set = ""
	succ := f.open(t)
	f.setFault(t, herdrtest.Fault{Hang: true})
	done := make(chan error, 1)
	go func() { done <- old.Report(context.Background(), working) }()
	hung := waitForHungCall(t, f)
	f.setFault(t, herdrtest.Fault{})
	// Once the successor holds the pane's turn, the predecessor's call
	// must be over: abandoned at its one-second deadline, its timeout
	// counted.
	atTurn := make(chan string, 1)
	onTurn(t, succ, func() { atTurn <- old.Details()["diag.timeout"] })
	if err := succ.Report(t.Context(), idle); err != nil {
		t.Fatalf("successor: %v", err)
	}
	var ce *CallError
	if err := <-done; !errors.As(err, &ce) || ce.Kind != adapter.KindTimeout {
		t.Fatalf("predecessor's in-flight Report = %v, want its timeout", err)
	}
	calls := f.calls(t)
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2", len(calls))
	}
	next := calls[0]
	if next.Hung {
		next = calls[1]
	}
	if n := <-atTurn; n != "1" {
		t.Errorf("the successor got the pane's turn with the predecessor's timeout count at %q, want 1: its call was still in flight", n)
	}
	assertIncreasing(t, []herdrtest.Call{hung, next})
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "idle" {
		t.Errorf("status %q, want idle", info.AgentStatus)
	}
}

func TestSequenceClockRollback(t *testing.T) { forTransports(t, testSequenceClockRollback) }

func testSequenceClockRollback(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{InView: []string{"w1:p1"}})
	clock := &testClock{now: time.UnixMilli(1_800_000_000_000)}
	f.drv.Clock = clock.Now
	ctx := t.Context()
	a := f.open(t)
	step := func(a *Adapter, r adapter.Report) {
		t.Helper()
		if err := a.Report(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	step(a, working)                        // clock
	step(a, blocked)                        // same ms: +1
	clock.Set(clock.Now().Add(time.Second)) //
	step(a, working)                        // clock again
	clock.Set(clock.Now().Add(-time.Hour))  // rollback
	step(a, idle)                           // +1
	if err := a.Release(ctx); err != nil {  // +1
		t.Fatal(err)
	}
	b := f.open(t) // a new adapter in the same process, clock still behind
	step(b, working)
	want := []uint64{1_800_000_000_000, 1_800_000_000_001, 1_800_000_001_000, 1_800_000_001_001, 1_800_000_001_002, 1_800_000_001_003}
	if diff := cmp.Diff(assertIncreasing(t, f.calls(t)), want); diff != "" {
		t.Errorf("seqs (-got +want):\n%s", diff)
	}
	if hwm, _ := f.h.HighWater("w1:p1", "custom:panetest"); hwm != want[len(want)-1] {
		t.Errorf("Herdr's high-water %d, want %d: a report was ignored", hwm, want[len(want)-1])
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "working" {
		t.Errorf("status %q, want working", info.AgentStatus)
	}
}

func TestSequencePersistedAcrossProcesses(t *testing.T) {
	forTransports(t, testSequencePersistedAcrossProcesses)
}

func testSequencePersistedAcrossProcesses(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{InView: []string{"w1:p1"}})
	clock := &testClock{now: time.UnixMilli(1_800_000_000_000)}
	f.drv.Clock = clock.Now
	ctx := t.Context()
	a := f.open(t)
	if err := a.Report(ctx, working); err != nil {
		t.Fatal(err)
	}
	path := paneFilePath(f)
	const T uint64 = 1_800_000_000_000
	if got := readSeqFile(t, path); got != T {
		t.Errorf("seq file holds %d, want exactly the number sent, %d", got, T)
	}
	// Every call rewrites the file with the exact number it uses.
	clock.Set(clock.Now().Add(time.Second))
	if err := a.Report(ctx, blocked); err != nil {
		t.Fatal(err)
	}
	if got := readSeqFile(t, path); got != T+1000 {
		t.Errorf("seq file holds %d after the second report, want %d", got, T+1000)
	}
	a.Close(ctx)

	// A restarted process (the file's mark decides), with a clock an hour
	// behind.
	clock.Set(clock.Now().Add(-time.Hour))
	b := f.open(t)
	if err := b.Report(ctx, idle); err != nil {
		t.Fatal(err)
	}
	calls := f.calls(t)
	if got := seqOf(t, calls[2]); got != T+1001 {
		t.Errorf("restarted seq %d, want one above the saved %d", got, T+1000)
	}
	assertIncreasing(t, calls)
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "idle" {
		t.Errorf("Herdr ignored the restarted process: status %q", info.AgentStatus)
	}
}

// TestSequenceNoDriftAcrossRestarts is the regression test for numbers that
// ran ahead of the clock by a fixed reservation at every restart: restarts
// (and alternating processes) add one to the newest number, never more.
func TestSequenceNoDriftAcrossRestarts(t *testing.T) {
	tests := []struct {
		name string
		step time.Duration // clock advance between restarts
	}{
		{name: "clock standing still", step: 0},
		{name: "clock advancing", step: 10 * time.Millisecond},
		{name: "clock stepping back", step: -time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forTransports(t, func(t *testing.T, transport string) {
				f := newFixtureOn(t, transport, herdrtest.Options{})
				const T uint64 = 1_800_000_000_000
				clock := &testClock{now: time.UnixMilli(int64(T))}
				f.drv.Clock = clock.Now
				const restarts = 20
				want := T
				for i := range restarts {
					a := f.open(t)
					if err := a.Report(t.Context(), working); err != nil {
						t.Fatal(err)
					}
					if err := a.Close(t.Context()); err != nil {
						t.Fatal(err)
					}
					if i > 0 {
						want = max(clockMs(clock.Now()), want+1)
					}
					clock.Set(clock.Now().Add(tt.step))
				}
				seqs := assertIncreasing(t, f.calls(t))
				if got := seqs[len(seqs)-1]; got != want {
					t.Errorf("after %d restarts the seq is %d, want %d (%d ms ahead)", restarts, got, want, int64(got-want))
				}
			})
		})
	}
}

func readSeqFile(t *testing.T, path string) uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		t.Fatalf("pane file %q", b)
	}
	n, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSequencePersistedBeforeTheCall(t *testing.T) {
	forTransports(t, testSequencePersistedBeforeTheCall)
}

func testSequencePersistedBeforeTheCall(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	// A bound a race-built CLI on a loaded machine fits in: the hung call
	// is abandoned by cancelling it once the file was read, not at the
	// timeout.
	f.set = `{"timeout":"10s"}`
	a := f.open(t)
	warmUp(t, f, a)
	f.setFault(t, herdrtest.Fault{Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Report(ctx, working) }()
	hung := waitForHungCall(t, f)
	path := paneFilePath(f)
	if got, seq := readSeqFile(t, path), seqOf(t, hung); got != seq {
		t.Errorf("while the call runs the file holds %d, want its seq %d", got, seq)
	}
	cancel()
	<-done
}

// Environment of the helper processes: another host process in the pane.
const (
	childEnvFlag  = "PANESTATE_HERDR_TEST_CHILD"
	childStateDir = "PANESTATE_HERDR_TEST_STATEDIR"
	childClockMs  = "PANESTATE_HERDR_TEST_CLOCK_MS" // unset: the real clock
	childScript   = "PANESTATE_HERDR_TEST_SCRIPT"   // commands separated by ","; unset: read stdin
	childSettings = "PANESTATE_HERDR_TEST_SETTINGS"
	childOvertook = "PANESTATE_HERDR_TEST_OVERTOOK" // set: say "overtook" when a call goes on past another process's that held the pane past the wait
)

// childMain runs in the re-executed test binary: another host process in
// the same pane. It runs commands ("report <state>", "release",
// "explain <key>") from $PANESTATE_HERDR_TEST_SCRIPT, or else one per line
// from stdin, answering each on stdout with "ok" (or the Details value) or
// "err <error>", and "stale" for each stale_owner diagnostic. It exits at
// the end of the script or of stdin, closing the adapter without a release.
func childMain() int {
	clock := time.Now
	if v := os.Getenv(childClockMs); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			os.Stderr.WriteString("bad clock\n")
			return 2
		}
		clock = func() time.Time { return time.UnixMilli(ms) }
	}
	d := Driver{StateDir: os.Getenv(childStateDir), Clock: clock}
	ctx := context.Background()
	out := bufio.NewWriter(os.Stdout)
	var outMu sync.Mutex
	say := func(s string) {
		outMu.Lock()
		defer outMu.Unlock()
		out.WriteString(s + "\n")
		out.Flush()
	}
	p := adapter.Params{Name: "herdr", App: "panetest", Env: adapter.Env(os.Environ()), Host: interactive,
		Diagnose: func(d adapter.Diagnostic) {
			if d.Kind == adapter.KindStaleOwner {
				say("stale")
			}
		}}
	if s := os.Getenv(childSettings); s != "" {
		p.Settings = []byte(s)
	}
	a, err := d.Open(ctx, p)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	defer optional.Close(ctx, a)
	sc := bufio.NewScanner(os.Stdin)
	if os.Getenv(childOvertook) != "" {
		owner.Trace.Bypassed = func(*owner.Owner) { say("overtook") }
	}
	states := map[string]adapter.Report{"working": working, "blocked": blocked, "idle": idle}
	run := func(cmd string) {
		verb, arg, _ := strings.Cut(strings.TrimSpace(cmd), " ")
		var err error
		switch verb {
		case "report":
			err = a.Report(ctx, states[arg])
		case "release":
			err = optional.Release(ctx, a)
		case "explain":
			say(optional.Details(a)[arg])
			return
		default:
			err = errors.New("unknown command " + verb)
		}
		if err != nil {
			say("err " + err.Error())
			return
		}
		say("ok")
	}
	if script, ok := os.LookupEnv(childScript); ok {
		for cmd := range strings.SplitSeq(script, ",") {
			run(cmd)
		}
		return 0
	}
	for sc.Scan() {
		run(sc.Text())
	}
	return 0
}

// childCmd returns the command of a helper process in f's pane.
func childCmd(t *testing.T, f *fixture, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), f.h.Env()...)
	cmd.Env = append(cmd.Env, childEnvFlag+"=1", childStateDir+"="+f.drv.StateDir)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func TestTwoProcessesOnePane(t *testing.T) { forTransports(t, testTwoProcessesOnePane) }

func testTwoProcessesOnePane(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{InView: []string{"w1:p1"}})
	clock := &testClock{now: time.UnixMilli(1_800_000_000_000)}
	f.drv.Clock = clock.Now
	a := f.open(t)
	back := make(chan struct{}, 1)
	onTakeBack(t, a, func() { back <- struct{}{} })
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}

	// Another process in the pane, with a clock an hour behind, reports
	// and exits without releasing.
	cmd := childCmd(t, f, childScript+"=report blocked", childSettings+`={"transport":"`+transport+`"}`,
		childClockMs+"="+strconv.FormatInt(1_800_000_000_000-3_600_000, 10))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("second process: %v\n%s", err, out)
	}

	// The other process died holding the pane: this one takes it back by
	// itself, with its last report, still at the old clock and above the
	// other's seq.
	<-back
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "working" {
		t.Errorf("after the other process died: status %q, want this one's working", info.AgentStatus)
	}
	// And its next report goes out above that.
	if err := a.Report(t.Context(), idle); err != nil {
		t.Fatal(err)
	}
	calls := f.calls(t)
	if len(calls) != 4 {
		t.Fatalf("%d calls, want 4", len(calls))
	}
	// The file holds the exact number of the newest call: the other process
	// continues one above this one's, and this one one above the other's,
	// however far behind either clock is.
	const T uint64 = 1_800_000_000_000
	want := []uint64{T, T + 1, T + 2, T + 3}
	if diff := cmp.Diff(assertIncreasing(t, calls), want); diff != "" {
		t.Errorf("seqs (-got +want):\n%s", diff)
	}
	if calls[1].PID == calls[0].PID || calls[1].Command != "pane report-agent" {
		t.Errorf("second call %+v is not the other process's report", calls[1])
	}
	if calls[2].Status != "working" || calls[3].Status != "idle" {
		t.Errorf("third and fourth calls applied %q and %q, want this process's take-back (working) and its next report (idle)", calls[2].Status, calls[3].Status)
	}
	if info, _ := f.h.Agent("w1:p1"); info.AgentStatus != "idle" {
		t.Errorf("status %q, want idle: a report was ignored", info.AgentStatus)
	}
}

func TestPersistFailure(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		stateDir string
		env      func(adapter.Env) adapter.Env
	}{
		{name: "state dir is a file", stateDir: notADir},
		{name: "state dir below a file", stateDir: filepath.Join(notADir, "sub")},
		{name: "no home", env: func(e adapter.Env) adapter.Env {
			return e.Without(func(k string) bool { return k == "HOME" || k == "XDG_STATE_HOME" || k == "LOCALAPPDATA" })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forTransports(t, func(t *testing.T, transport string) {
				f := newFixtureOn(t, transport, herdrtest.Options{})
				f.drv.StateDir = tt.stateDir
				if tt.env != nil {
					f.env = tt.env(f.env)
				}
				a := f.open(t)
				for _, r := range []adapter.Report{working, idle} {
					if err := a.Report(t.Context(), r); err != nil {
						t.Fatalf("Report = %v; a persistence failure must not fail it", err)
					}
				}
				if diff := cmp.Diff(f.diags.kinds(), map[adapter.Kind]int{adapter.KindPersistFailed: 1}); diff != "" {
					t.Errorf("diagnostics (-got +want):\n%s", diff)
				}
				if n := a.Details()["diag.persist_failed"]; n != "2" {
					t.Errorf("counter %q, want 2", n)
				}
				assertIncreasing(t, f.calls(t))
			})
		})
	}
}

func TestReleaseByNeverReportedSuccessor(t *testing.T) {
	forTransports(t, testReleaseByNeverReportedSuccessor)
}

func testReleaseByNeverReportedSuccessor(t *testing.T, transport string) {
	f := newFixtureOn(t, transport, herdrtest.Options{})
	ctx := t.Context()
	old := f.open(t)
	if err := old.Report(ctx, working); err != nil {
		t.Fatal(err)
	}
	succ := f.open(t)
	if err := old.Close(ctx); err != nil { // replaced: closed, not released
		t.Fatal(err)
	}
	if err := succ.Release(ctx); err != nil { // the host quits before any new state
		t.Fatal(err)
	}
	calls := f.calls(t)
	if len(calls) != 2 || calls[1].Command != "pane release-agent" {
		t.Fatalf("calls %+v, want a report then a release", calls)
	}
	assertIncreasing(t, calls)
	if info, _ := f.h.Agent("w1:p1"); info.Found {
		t.Errorf("the predecessor's state stayed: %+v", info)
	}
	// A released adapter may claim the pane again.
	if err := succ.Report(ctx, idle); err != nil {
		t.Fatal(err)
	}
	if info, _ := f.h.Agent("w1:p1"); !info.Found {
		t.Error("report after release not applied")
	}
}

func TestOpText(t *testing.T) {
	tests := []struct {
		op      Op
		text    string
		method  string
		invalid bool
	}{
		{op: OpReport, text: "report-agent", method: "pane.report_agent"},
		{op: OpRelease, text: "release-agent", method: "pane.release_agent"},
		{op: 0, text: "Op(0)", invalid: true},
		{op: 7, text: "Op(7)", invalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := tt.op.String(); got != tt.text {
				t.Errorf("String = %q, want %q", got, tt.text)
			}
			b, err := tt.op.MarshalText()
			if tt.invalid {
				if err == nil {
					t.Errorf("MarshalText = %q, want an error", b)
				}
				return
			}
			if err != nil || string(b) != tt.text {
				t.Errorf("MarshalText = %q, %v; want %q", b, err, tt.text)
			}
			if got := tt.op.method(); got != tt.method {
				t.Errorf("method = %q, want %q", got, tt.method)
			}
		})
	}
}

// paneFilePath is the pane file of f's pane, w1:p1.
func paneFilePath(f *fixture) string {
	return filepath.Join(f.drv.StateDir, owner.FileName(owner.Key{Kind: "herdr", Server: f.h.Socket, Pane: "w1:p1"}))
}

// plantRecord writes a pane record naming another live process (the test
// binary's parent) as the owner and, when busy, holds the pane file's lock
// until the test ends, as that process's call in flight would (flock locks
// of two opens conflict within a process too).
func plantRecord(t *testing.T, path string, seq uint64, busy bool) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("o1 %020d %016x %010d %020d\n", seq, 0xfeed, os.Getppid(), 1)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(line), 0); err != nil {
		t.Fatal(err)
	}
	if !busy || planted[path] {
		f.Close()
		return
	}
	if ok, err := filelock.TryLockFile(f); !ok || err != nil {
		t.Fatalf("lock the pane file: %v %v", ok, err)
	}
	planted[path] = true
	t.Cleanup(func() {
		delete(planted, path)
		filelock.UnlockFile(f)
		f.Close()
	})
}

// planted names the pane files whose lock plantRecord holds.
var planted = map[string]bool{}
