package registry

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/settingsengine"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// herdrFixture is a registry with only the Herdr adapter, in the pane of an
// emulated Herdr. The driver is wrapped so that the test learns when each
// call has returned, instead of polling.
type herdrFixture struct {
	h     *herdrtest.Herdr
	hook  *hookDriver
	reg   *Registry
	store *session.Store
	home  string
	last  adapter.Report // the last report step waited for
}

func herdrOptions(h *herdrtest.Herdr, home string, hook *hookDriver) Options {
	env := append([]string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "PATH=" + os.Getenv("PATH")}, h.Env()...)
	return Options{
		App:      "paneapp",
		Host:     tuiHost,
		Env:      env,
		Settings: settings.Options{Home: home},
		tuneSettings: func(o *settingsengine.Options) {
			o.Debounce, o.Grace = 20*time.Millisecond, 100*time.Millisecond
		},
		StaticSettings: true,
		Drivers:        map[string]adapter.Driver{"herdr": hook},
	}
}

func newHerdrFixture(t *testing.T, live bool) *herdrFixture {
	t.Helper()
	h := herdrtest.StartT(t, herdrtest.Options{})
	home := t.TempDir()
	hook := newHookDriver(herdr.Driver{})
	opts := herdrOptions(h, home, hook)
	opts.StaticSettings = !live
	return &herdrFixture{h: h, hook: hook, reg: mustNew(t, opts), store: session.NewStore(), home: home}
}

// step applies an event, waits until the adapter has delivered its reduced
// state, and returns what Herdr shows.
func (f *herdrFixture) step(t *testing.T, event func()) herdrtest.AgentInfo {
	t.Helper()
	event()
	want, ok := reducer.Reduce(f.store.Snapshot())
	if !ok {
		t.Fatal("step has no report")
	}
	if want != f.last { // an unchanged report is not sent again
		f.hook.next(t, "report", func(r adapter.Report, err error) bool { return r == want && err == nil })
		f.last = want
	}
	info, err := f.h.Agent(f.h.Pane)
	if err != nil {
		t.Fatal(err)
	}
	shows := string(info.AgentStatus)
	if shows == "done" { // idle after working, on a pane not in view
		shows = "idle"
	}
	if !info.Found || shows != want.State.String() {
		t.Errorf("herdr shows %+v after %v was delivered", info, want)
	}
	return info
}

// reports returns the herdr calls as "command state message" strings and
// checks the sequence numbers rise strictly across all of them.
func (f *herdrFixture) calls(t *testing.T) []string {
	t.Helper()
	calls, err := f.h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var last uint64
	for _, c := range calls {
		if c.Command == "ping" {
			continue // the adapter's own protocol check on the socket
		}
		seqText, ok := c.Flag("seq")
		if !ok {
			t.Errorf("call without --seq: %q", c.Args)
			continue
		}
		seq, err := strconv.ParseUint(seqText, 10, 64)
		if err != nil || seq <= last {
			t.Errorf("--seq %s after %d: not strictly increasing", seqText, last)
		}
		last = seq
		if src, _ := c.Flag("source"); src != "custom:paneapp" {
			t.Errorf("--source %q", src)
		}
		state, _ := c.Flag("state")
		msg, hasMsg := c.Flag("message")
		if hasMsg && !slices.Contains([]string{"Waiting for approval", "Waiting for input", "Workflow needs attention"}, msg) {
			t.Errorf("--message %q is not one of the fixed texts", msg)
		}
		out = append(out, strings.TrimSpace(strings.Join([]string{c.Command, state, msg}, " ")))
	}
	return out
}

// The activity path the Atomic seed pins: a tool-only execution followed by
// an approval prompt gives working, blocked, working, idle, with strictly
// increasing sequence numbers, the release included.
func TestHerdrActivityPath(t *testing.T) {
	f := newHerdrFixture(t, false)
	if err := f.reg.Attach(t.Context(), f.store); err != nil {
		t.Fatal(err)
	}
	f.step(t, func() {}) // the state at Attach
	var shown []string
	for _, ev := range []func(){
		func() { f.store.AgentStart(); f.store.SetTasks(0) }, // tool work
		func() { f.store.PromptStart("approve-1", session.PromptApproval) },
		func() { f.store.PromptEnd("approve-1") },
		func() { f.store.AgentSettled() },
	} {
		shown = append(shown, string(f.step(t, ev).AgentStatus))
	}
	if err := f.reg.Detach(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Idle after working shows as done on a pane not in view (CONTRACT 3.9).
	if diff := cmp.Diff(shown, []string{"working", "blocked", "working", "done"}); diff != "" {
		t.Errorf("agent get after each step (-got +want):\n%s", diff)
	}
	want := []string{
		"pane report-agent idle", // the state at Attach
		"pane report-agent working",
		"pane report-agent blocked Waiting for approval",
		"pane report-agent working",
		"pane report-agent idle",
		"pane release-agent",
	}
	if diff := cmp.Diff(f.calls(t), want); diff != "" {
		t.Errorf("herdr calls (-got +want):\n%s", diff)
	}
	if info, _ := f.h.Agent(f.h.Pane); info.Found {
		t.Errorf("pane still claimed after Detach: %+v", info)
	}
}

// A workflow from the Atomic table: independent workflow execution keeps the
// pane working after the agent settles; a blocked workflow blocks it with
// the fixed message; a finished one lets it go idle.
func TestHerdrWorkflowScenario(t *testing.T) {
	f := newHerdrFixture(t, false)
	f.store.AgentStart()
	if err := f.reg.Attach(t.Context(), f.store); err != nil {
		t.Fatal(err)
	}
	f.step(t, func() {})
	wf := func(w session.Workflows) func() {
		return func() { f.store.SetWorkflows(w) }
	}
	var shown []string
	for _, ev := range []func(){
		wf(session.Workflows{Executing: true}),
		f.store.AgentSettled, // the workflow keeps the pane working
		wf(session.Workflows{AwaitingInput: true, NeedsAttention: true}),
		wf(session.Workflows{}), // the root finished
	} {
		shown = append(shown, string(f.step(t, ev).AgentStatus))
	}
	if diff := cmp.Diff(shown, []string{"working", "working", "blocked", "done"}); diff != "" {
		t.Errorf("agent get after each step (-got +want):\n%s", diff)
	}
	// The workflow taking over from the settled agent gives the same report
	// (working, executing), which is not sent again.
	want := []string{
		"pane report-agent working",
		"pane report-agent blocked Workflow needs attention",
		"pane report-agent idle",
	}
	if diff := cmp.Diff(f.calls(t), want); diff != "" {
		t.Errorf("herdr calls (-got +want):\n%s", diff)
	}
}

// herdr.enabled turned off in the settings releases the pane live, with a
// sequence number above every earlier one; turned on again, the pane is
// claimed and the current state reported at once.
func TestHerdrSettingsToggle(t *testing.T) {
	f := newHerdrFixture(t, true)
	f.store.AgentStart()
	if err := f.reg.Attach(t.Context(), f.store); err != nil {
		t.Fatal(err)
	}
	f.step(t, func() {})
	global := filepath.Join(f.home, ".paneapp", "agent", "settings.json")
	write := func(body string) {
		if err := os.MkdirAll(filepath.Dir(global), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(global, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"theme": "dark", "herdr": {"enabled": false}}`)
	f.hook.next(t, "release", func(_ adapter.Report, err error) bool { return err == nil })
	if info, err := f.h.Agent(f.h.Pane); err != nil || info.Found {
		t.Errorf("pane after the release: %+v, %v; want it released", info, err)
	}
	f.store.PromptStart("p", session.PromptApproval) // while disabled: nothing sent
	write(`{"herdr": {"enabled": true}}`)
	f.hook.next(t, "report", func(r adapter.Report, err error) bool { return r.State == adapter.StateBlocked && err == nil })
	if info, err := f.h.Agent(f.h.Pane); err != nil || info.AgentStatus != "blocked" {
		t.Errorf("pane after re-enabling: %+v, %v; want it claimed, blocked", info, err)
	}
	want := []string{
		"pane report-agent working",
		"pane release-agent",
		"pane report-agent blocked Waiting for approval",
	}
	if diff := cmp.Diff(f.calls(t), want); diff != "" {
		t.Errorf("herdr calls (-got +want):\n%s", diff)
	}
	if e := f.reg.Explain().Adapters[0]; e.Lifecycle != LifecycleActive || e.EnabledBy != settings.LayerGlobal {
		t.Errorf("explain %+v", e)
	}
}

// A storm of state changes against a slow Herdr (10 ms per call, over the
// transport the adapter picks, the socket here): the one-slot mailbox and
// one call per pane at a time keep the reports to what Herdr can take, and
// the last state is the one Herdr shows.
func TestHerdrStormCoalesces(t *testing.T) {
	f := newHerdrFixture(t, false)
	if err := f.h.SetFault(herdrtest.Fault{SleepMs: 10}); err != nil {
		t.Fatal(err)
	}
	calls := stormOnce(t, f.h, f.hook, f.reg, f.store)
	// A tight loop of 100,000 changes reaches Herdr with at most three reports:
	// the state at Attach, the one in flight when the storm began (the gate
	// holds the first call for the whole storm, however slow the machine),
	// and the final state.
	if calls > 3 {
		t.Errorf("%d reports reached Herdr for a storm of 100,000 changes, want at most 3", calls)
	}
	if info, _ := f.h.Agent(f.h.Pane); info.AgentStatus != "blocked" {
		t.Errorf("herdr shows %q after the storm, want the final state blocked", info.AgentStatus)
	}
}

// stormOnce attaches reg, publishes a storm of 100,000 changes in a tight
// loop, waits until the final state was delivered, and returns how many
// reports the emulator received meanwhile.
func stormOnce(tb testing.TB, h *herdrtest.Herdr, hook *hookDriver, reg *Registry, store *session.Store) int {
	before, err := h.Calls()
	if err != nil {
		tb.Fatal(err)
	}
	hook.gate = make(chan struct{})
	if err := reg.Attach(context.Background(), store); err != nil {
		tb.Fatal(err)
	}
	storm(store, 100_000)
	close(hook.gate)
	final, _ := reducer.Reduce(store.Snapshot())
	hook.next(tb, "report", func(r adapter.Report, err error) bool { return r == final && err == nil })
	after, err := h.Calls()
	if err != nil {
		tb.Fatal(err)
	}
	// Only the reports count: the adapter may also ask the server its
	// version (a socket status call) before its first report.
	reports := 0
	for _, c := range after[len(before):] {
		if c.Command == "pane report-agent" {
			reports++
		}
	}
	return reports
}

// storm publishes n state changes as fast as possible, ending blocked.
func storm(store *session.Store, n int) {
	for i := range n - 1 {
		switch i % 3 {
		case 0:
			store.AgentStart()
		case 1:
			store.PromptStart("p", session.PromptInput)
		case 2:
			store.PromptEnd("p")
			store.AgentSettled()
		}
	}
	store.PromptStart("final", session.PromptApproval)
}

// BenchmarkStorm reports the reports per storm of 100,000 changes against a
// Herdr that takes 10 ms per call, and fails above 3. Only the storm is timed: from
// Attach to the final state delivered; the emulator starts once.
func BenchmarkStorm(b *testing.B) {
	h := herdrtest.StartT(b, herdrtest.Options{})
	if err := h.SetFault(herdrtest.Fault{SleepMs: 10}); err != nil {
		b.Fatal(err)
	}
	most := 0
	for b.Loop() {
		b.StopTimer()
		hook := newHookDriver(herdr.Driver{})
		reg, err := New(herdrOptions(h, b.TempDir(), hook))
		if err != nil {
			b.Fatal(err)
		}
		store := session.NewStore()
		b.StartTimer()
		calls := stormOnce(b, h, hook, reg, store)
		b.StopTimer()
		most = max(most, calls)
		if err := reg.Detach(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(most), "max-reports")
	if most > 3 {
		b.Fatalf("a storm reached Herdr with %d reports, want at most 3", most)
	}
}

// Detach against a real emulated Herdr with a report in flight: a slow Herdr
// (500 ms per call) answers the report and then receives the release; a hung
// one (ignoring SIGTERM)
// gets a release attempt that is killed at its deadline, and Detach says so;
// the next Detach releases it.
func TestHerdrDetachWithASlowOrHungHerdr(t *testing.T) {
	for _, tt := range []struct {
		name     string
		fault    herdrtest.Fault
		released bool
		// budget is the release budget; zero is the default. The slow
		// case proves the order (the report answered, then the release),
		// not a speed: two 500 ms calls plus two CLI starts fit the
		// default budget on an idle machine, not on a loaded one.
		budget time.Duration
	}{
		{"slow", herdrtest.Fault{SleepMs: 500}, true, 10 * time.Second},
		{"hung", herdrtest.Fault{Hang: true, HangIgnoreTERM: true}, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newHerdrFixture(t, false)
			if tt.budget != 0 {
				opts := herdrOptions(f.h, f.home, f.hook)
				opts.ReleaseTimeout = tt.budget
				f.reg = mustNew(t, opts)
			}
			if err := f.reg.Attach(t.Context(), f.store); err != nil {
				t.Fatal(err)
			}
			f.step(t, func() {})
			if err := f.h.SetFault(tt.fault); err != nil {
				t.Fatal(err)
			}
			f.store.AgentStart()
			f.hook.next(t, "enter", nil) // the report is in flight
			err := f.reg.Detach(context.Background())
			info, aerr := f.h.Agent(f.h.Pane)
			if aerr != nil {
				t.Fatal(aerr)
			}
			if released := !info.Found; released != tt.released || (err == nil) != tt.released {
				t.Errorf("pane released %t, Detach error %v; want released %t", released, err, tt.released)
			}
			// The release was attempted. Whether a hung Herdr's CLI got as
			// far as the emulator before its deadline depends on how fast
			// the machine starts a process, so the hook tells, not the
			// emulator's log.
			f.hook.next(t, "release", func(_ adapter.Report, rerr error) bool { return (rerr == nil) == tt.released })
			if !tt.released {
				// Herdr is back: the next Detach tries the release again.
				if err := f.h.SetFault(herdrtest.Fault{}); err != nil {
					t.Fatal(err)
				}
				if err := f.reg.Detach(context.Background()); err != nil {
					t.Errorf("second Detach: %v", err)
				}
				if info, _ := f.h.Agent(f.h.Pane); info.Found {
					t.Error("the second Detach did not release the pane")
				}
			}
		})
	}
}

// Turning Herdr off in the settings while a slow call is in flight, then
// detaching, releases the pane.
func TestHerdrDisableDuringASlowCallThenDetach(t *testing.T) {
	f := newHerdrFixture(t, true)
	// The test proves the order, not a speed: two 500 ms calls plus two
	// CLI starts fit the default budget on an idle machine, not on a
	// loaded one (as in TestHerdrDetachWithASlowOrHungHerdr).
	opts := herdrOptions(f.h, f.home, f.hook)
	opts.StaticSettings = false
	opts.ReleaseTimeout = 10 * time.Second
	f.reg = mustNew(t, opts)
	if err := f.reg.Attach(t.Context(), f.store); err != nil {
		t.Fatal(err)
	}
	f.step(t, func() {})
	// The report in flight and the release each take 500 ms: both fit in
	// the release budget.
	if err := f.h.SetFault(herdrtest.Fault{SleepMs: 500}); err != nil {
		t.Fatal(err)
	}
	f.store.AgentStart()
	f.hook.next(t, "enter", nil)
	global := filepath.Join(f.home, ".paneapp", "agent", "settings.json")
	if err := os.MkdirAll(filepath.Dir(global), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(global, []byte(`{"herdr": {"enabled": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.reg.Detach(context.Background()); err != nil {
		t.Errorf("Detach: %v", err)
	}
	if info, err := f.h.Agent(f.h.Pane); err != nil || info.Found {
		t.Errorf("pane %+v (%v) after Detach, want it released", info, err)
	}
}

// Two registries of one process on one Herdr pane: the newer one's first
// report takes the pane, the older one shows as stale_owner (not active)
// and sends nothing; once the newer one detaches, the older one takes the
// pane back by itself, although its own state did not change meanwhile,
// and shows as active again.
func TestTwoRegistriesOnOnePane(t *testing.T) {
	h := herdrtest.StartT(t, herdrtest.Options{})
	home := t.TempDir()
	ctx := t.Context()
	lifecycle := func(reg *Registry) Lifecycle {
		for _, a := range reg.Explain().Adapters {
			if a.Name == "herdr" {
				return a.Lifecycle
			}
		}
		t.Fatal("no herdr adapter in Explain")
		return ""
	}

	olderHook := newHookDriver(herdr.Driver{})
	older := mustNew(t, herdrOptions(h, home, olderHook))
	olderStore := session.NewStore()
	olderStore.AgentStart()
	if err := older.Attach(ctx, olderStore); err != nil {
		t.Fatal(err)
	}
	olderHook.next(t, "report", func(r adapter.Report, err error) bool { return r.State == adapter.StateWorking && err == nil })

	newerHook := newHookDriver(herdr.Driver{})
	newer := mustNew(t, herdrOptions(h, home, newerHook))
	if err := newer.Attach(ctx, session.NewStore()); err != nil {
		t.Fatal(err)
	}
	newerHook.next(t, "report", func(r adapter.Report, err error) bool { return r.State == adapter.StateIdle && err == nil })
	if got := lifecycle(older); got != LifecycleStaleOwner {
		t.Errorf("older registry while the newer one holds the pane: %s, want %s", got, LifecycleStaleOwner)
	}
	if got := lifecycle(newer); got != LifecycleActive {
		t.Errorf("newer registry: %s, want %s", got, LifecycleActive)
	}

	if err := newer.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := h.Wait(wctx, h.Pane, func(a herdrtest.AgentInfo) bool {
		return a.Found && a.AgentStatus == herdrtest.StatusWorking
	}); err != nil {
		t.Fatalf("the older registry did not take the pane back after the newer one detached: %v", err)
	}
	if got := lifecycle(older); got != LifecycleActive {
		t.Errorf("older registry after taking the pane back: %s, want %s", got, LifecycleActive)
	}
	if err := older.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	if info, _ := h.Agent(h.Pane); info.Found {
		t.Errorf("after both detached the pane shows %+v, want it released", info)
	}
}

// lineWriter sends every line written to it that contains want on c.
type lineWriter struct {
	want string
	c    chan string
}

func (w lineWriter) Write(p []byte) (int, error) {
	if line := string(p); strings.Contains(line, w.want) {
		w.c <- line
	}
	return len(p), nil
}

// A Herdr adapter still inside its Report when the release budget runs out
// (a loaded machine, or an adapter that ignores its cancelled ctx) is left
// unreleased and open, its claim still holding the pane, until the next
// Detach: that Detach releases the pane and closes the adapter, which ends
// the claim's watch of the pane. A host that runs the registry inside a
// longer-lived process (examples/chat's tests) relies on it.
func TestHerdrReportPastTheBudgetIsReleasedByTheNextDetach(t *testing.T) {
	t.Parallel()
	f := newHerdrFixture(t, false)
	f.hook.hold = make(chan struct{})
	unreleased := lineWriter{want: "adapter not released", c: make(chan string, 1)}
	opts := herdrOptions(f.h, f.home, f.hook)
	opts.Logger = hclog.New(&hclog.LoggerOptions{Output: unreleased, Level: hclog.Warn})
	f.reg = mustNew(t, opts)
	if err := f.reg.Attach(t.Context(), f.store); err != nil {
		t.Fatal(err)
	}
	f.hook.next(t, "held", nil) // idle, at attach
	f.hook.hold <- struct{}{}
	f.store.AgentStart()
	f.hook.next(t, "held", func(r adapter.Report, err error) bool { return r.State == adapter.StateWorking && err == nil })
	if err := f.reg.Detach(context.Background()); err == nil {
		t.Error("Detach returned nil with a report still in flight past the budget")
	}
	close(f.hook.hold) // the report returns, the budget spent
	line := <-unreleased.c
	if !strings.Contains(line, "release: not attempted") {
		t.Errorf("the adapter was left unreleased for another reason: %s", line)
	}
	if got := f.reg.Explain().Adapters[0].Lifecycle; got != LifecycleUnreleased {
		t.Errorf("lifecycle %s after the first Detach; want %s", got, LifecycleUnreleased)
	}
	if info, err := f.h.Agent(f.h.Pane); err != nil || !info.Found {
		t.Fatalf("pane %+v (%v) after the first Detach; want it still claimed", info, err)
	}
	if err := f.reg.Detach(context.Background()); err != nil {
		t.Errorf("second Detach: %v", err)
	}
	f.hook.next(t, "release", func(_ adapter.Report, err error) bool { return err == nil })
	f.hook.next(t, "close", nil) // the claim's watch has ended: Close waits for it
	if info, err := f.h.Agent(f.h.Pane); err != nil || info.Found {
		t.Errorf("pane %+v (%v) after the second Detach; want it released", info, err)
	}
}
