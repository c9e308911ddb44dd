package herdr

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/session"

	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	herdrtest.Main() // the re-executed test binary acts as the fake herdr CLI
	if os.Getenv(childEnvFlag) != "" {
		os.Exit(childMain())
	}
	if os.Getenv(serveEnvFlag) != "" {
		os.Exit(serveMain())
	}
	if p := os.Getenv(listenEnv); p != "" {
		os.Exit(listenMain(p))
	}
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}

// interactive is a host that may claim a pane.
var interactive = session.Host{Interactive: true, Root: true}

// diags records diagnostics.
type diags struct {
	mu   sync.Mutex
	list []adapter.Diagnostic
}

func (d *diags) add(x adapter.Diagnostic) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = append(d.list, x)
}

func (d *diags) all() []adapter.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.list)
}

// kinds returns how many diagnostics of each kind were recorded.
func (d *diags) kinds() map[adapter.Kind]int {
	m := map[adapter.Kind]int{}
	for _, x := range d.all() {
		m[x.Kind]++
	}
	return m
}

// fixedMessages are the only texts --message may carry.
var fixedMessages = map[string]bool{
	adapter.MessageWaitingForApproval.String():     true,
	adapter.MessageWaitingForInput.String():        true,
	adapter.MessageWorkflowNeedsAttention.String(): true,
}

// startHerdr starts an emulated Herdr and, when the test ends, checks every
// argv the fake recorded: every --message is a fixed text, and no argument
// is one the real CLI would refuse or swallow.
func startHerdr(t testing.TB, opts herdrtest.Options) *herdrtest.Herdr {
	t.Helper()
	h := herdrtest.StartT(t, opts)
	t.Cleanup(func() { checkRecordedArgv(t, h) })
	return h
}

func checkRecordedArgv(t testing.TB, h *herdrtest.Herdr) {
	t.Helper()
	calls, err := h.Calls()
	if err != nil {
		t.Errorf("calls: %v", err)
		return
	}
	for _, c := range calls {
		args := c.Args
		if i := slices.Index(args, "--"); i >= 0 {
			args = args[:i] // a resume argv follows
		}
		for i, arg := range args {
			if err := checkArg(arg); err != nil {
				t.Errorf("call %q: argument %d %q: %v", c.Args, i, arg, err)
			}
			if arg == "--" || strings.HasPrefix(arg, "--") && strings.Contains(arg, "=") {
				t.Errorf("call %q: argument %q", c.Args, arg)
			}
		}
		if m, ok := c.Flag("message"); ok && !fixedMessages[m] {
			t.Errorf("call %q: --message %q is not a fixed text", c.Args, m)
		}
	}
}

// fixture is an emulated Herdr plus what opening an adapter needs.
type fixture struct {
	h         *herdrtest.Herdr
	drv       Driver
	diags     *diags
	env       adapter.Env
	host      session.Host
	set       string // settings JSON
	transport string // the transport setting, added to set when not ""
	skip      int    // calls ignores the calls the server received up to this one
}

// transports are the transports every behavioural test runs on.
var transports = []string{"cli", "socket"}

// forTransports runs test once per transport, as subtests.
func forTransports(t *testing.T, test func(t *testing.T, transport string)) {
	t.Helper()
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) { test(t, tr) })
	}
}

// newFixtureOn is newFixture with the transport setting.
func newFixtureOn(t testing.TB, transport string, opts herdrtest.Options) *fixture {
	t.Helper()
	f := newFixture(t, opts)
	f.transport = transport
	return f
}

func newFixture(t testing.TB, opts herdrtest.Options) *fixture {
	t.Helper()
	h := startHerdr(t, opts)
	return &fixture{
		h:     h,
		drv:   Driver{StateDir: filepath.Join(t.TempDir(), "state")}, // created 0700
		diags: &diags{},
		env:   adapter.Env(h.Env()),
		host:  interactive,
	}
}

func (f *fixture) params() adapter.Params {
	p := adapter.Params{
		Name:     "herdr",
		App:      "panetest",
		Logger:   hclog.NewNullLogger(),
		Env:      f.env,
		Host:     f.host,
		Diagnose: f.diags.add,
	}
	if f.set != "" {
		p.Settings = []byte(f.set)
	}
	if f.transport != "" {
		m := map[string]any{}
		if f.set != "" {
			if err := json.Unmarshal([]byte(f.set), &m); err != nil {
				panic(err)
			}
		}
		m["transport"] = f.transport
		p.Settings, _ = json.Marshal(m)
	}
	return p
}

// open opens an adapter and closes it when the test ends.
func (f *fixture) open(t testing.TB) *Adapter {
	t.Helper()
	a, err := f.drv.open(t.Context(), f.params())
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	return a
}

// calls returns the recorded calls but the adapter's own pings, in the
// order the server received them (calls that never reached it last).
func (f *fixture) calls(t testing.TB) []herdrtest.Call {
	t.Helper()
	var out []herdrtest.Call
	for _, c := range f.allCalls(t) {
		if c.Command != "ping" && (c.Arrival == 0 || c.Arrival > f.skip) {
			out = append(out, c)
		}
	}
	return out
}

// allCalls returns every recorded call, pings included, in the order the
// server received them.
func (f *fixture) allCalls(t testing.TB) []herdrtest.Call {
	t.Helper()
	calls, err := f.h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(calls, func(a, b herdrtest.Call) int {
		switch {
		case a.Arrival == b.Arrival:
			return 0
		case a.Arrival == 0:
			return 1
		case b.Arrival == 0:
			return -1
		}
		return a.Arrival - b.Arrival
	})
	return calls
}

func (f *fixture) setFault(t testing.TB, fault herdrtest.Fault) {
	t.Helper()
	if err := f.h.SetFault(fault); err != nil {
		t.Fatal(err)
	}
}

// seqOf returns a call's --seq.
func seqOf(t testing.TB, c herdrtest.Call) uint64 {
	t.Helper()
	n, ok := c.Seq()
	if !ok {
		t.Fatalf("call %s %q %s has no seq", c.Transport, c.Args, c.Params)
	}
	return n
}

// withoutSeq returns args with the --seq value replaced by "N".
func withoutSeq(args []string) []string {
	out := slices.Clone(args)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == "--seq" {
			out[i+1] = "N"
		}
	}
	return out
}

var (
	working = adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}
	blocked = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval}
	idle    = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent}
)

// eventually polls cond until it holds or the deadline passes; it is for
// external events (a process dying), never for the package's own state.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
