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

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// herdrFixture is a registry with only the Herdr adapter, in the pane of an
// emulated Herdr.
type herdrFixture struct {
	h     *herdrtest.Herdr
	reg   *Registry
	store *session.Store
	home  string
}

func newHerdrFixture(t *testing.T, live bool) *herdrFixture {
	t.Helper()
	h := herdrtest.StartT(t, herdrtest.Options{})
	home := t.TempDir()
	env := append([]string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "PATH=" + os.Getenv("PATH")}, h.Env()...)
	opts := Options{
		App:            "paneapp",
		Host:           tuiHost,
		Env:            env,
		Settings:       settings.Options{Home: home, Debounce: 20 * time.Millisecond, Grace: 100 * time.Millisecond},
		StaticSettings: !live,
		Adapters:       []string{"herdr"},
	}
	f := &herdrFixture{h: h, reg: mustNew(t, opts), store: session.NewStore(), home: home}
	return f
}

// step applies an event and waits until Herdr shows its reduced state.
func (f *herdrFixture) step(t *testing.T, event func()) herdrtest.AgentInfo {
	t.Helper()
	event()
	want, ok := reducer.Reduce(f.store.Snapshot())
	if !ok {
		t.Fatal("step has no report")
	}
	var info herdrtest.AgentInfo
	waitFor(t, "herdr to show "+want.String(), func() bool {
		lr := f.reg.Explain().Adapters[0].LastReport
		if lr == nil || lr.State != want.State.String() || lr.Reason != want.Reason.String() || lr.Message != want.Message.String() {
			return false
		}
		var err error
		info, err = f.h.Agent(f.h.Pane)
		shows := string(info.AgentStatus)
		if shows == "done" { // idle after working, on a pane not in view
			shows = "idle"
		}
		return err == nil && info.Found && shows == want.State.String()
	})
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
	wf := func(st session.WorkflowStatus, attention bool) func() {
		return func() {
			f.store.SetWorkflows(session.AvailabilityReady, []session.Root{{ID: "r1", Status: st, NeedsAttention: attention}})
		}
	}
	var shown []string
	for _, ev := range []func(){
		wf(session.WorkflowExecuting, false),
		f.store.AgentSettled, // the workflow keeps the pane working
		wf(session.WorkflowAwaitingInput, true),
		wf(session.WorkflowFinished, false),
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
	waitFor(t, "the pane released", func() bool {
		info, err := f.h.Agent(f.h.Pane)
		return err == nil && !info.Found
	})
	f.store.PromptStart("p", session.PromptApproval) // while disabled: nothing sent
	write(`{"herdr": {"enabled": true}}`)
	waitFor(t, "the pane claimed again", func() bool {
		info, err := f.h.Agent(f.h.Pane)
		return err == nil && info.AgentStatus == "blocked"
	})
	want := []string{
		"pane report-agent working",
		"pane release-agent",
		"pane report-agent blocked Waiting for approval",
	}
	if diff := cmp.Diff(f.calls(t), want); diff != "" {
		t.Errorf("herdr calls (-got +want):\n%s", diff)
	}
	if e := f.reg.Explain().Adapters[0]; e.State != "active" || e.EnabledBy != "global" {
		t.Errorf("explain %+v", e)
	}
}

// A storm of state changes against a slow CLI: the one-slot mailbox and the
// one child per pane keep the calls to what the CLI can take, and the last
// state is the one Herdr shows.
func TestHerdrStormCoalesces(t *testing.T) {
	f := newHerdrFixture(t, false)
	if err := f.h.SetFault(herdrtest.Fault{SleepMs: 10}); err != nil {
		t.Fatal(err)
	}
	if err := f.reg.Attach(t.Context(), f.store); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	const changes = 100_000
	storm(f.store, changes)
	final := f.step(t, func() {})
	elapsed := time.Since(start)
	calls, err := f.h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	// Every call sleeps 10 ms, so at most elapsed/10ms calls can have
	// started after Attach's first one; the +2 covers that one and the call
	// in flight when the storm began.
	if bound := int(elapsed/(10*time.Millisecond)) + 2; len(calls) > bound {
		t.Errorf("%d CLI calls for %d changes in %v, want at most %d", len(calls), changes, elapsed, bound)
	}
	if final.AgentStatus != "blocked" {
		t.Errorf("herdr shows %q after the storm, want the final state blocked", final.AgentStatus)
	}
	t.Logf("%d changes, %d CLI calls, %v", changes, len(calls), elapsed)
}

// storm publishes n state changes as fast as possible, ending blocked.
func storm(store *session.Store, n int) {
	for i := range n - 1 {
		switch i % 3 {
		case 0:
			store.AgentStart()
		case 1:
			store.PromptStart("p", session.PromptQuestion)
		case 2:
			store.PromptEnd("p")
			store.AgentSettled()
		}
	}
	store.PromptStart("final", session.PromptApproval)
}

// BenchmarkStorm reports CLI calls per storm of 100,000 changes against a
// CLI that takes 10 ms, and the bound elapsed/10ms + 2.
func BenchmarkStorm(b *testing.B) {
	for b.Loop() {
		h, err := herdrtest.Start(herdrtest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := h.SetFault(herdrtest.Fault{SleepMs: 10}); err != nil {
			b.Fatal(err)
		}
		home := b.TempDir()
		reg, err := New(Options{App: "storm", Host: tuiHost, StaticSettings: true, Adapters: []string{"herdr"},
			Env:      append([]string{"HOME=" + home, "XDG_STATE_HOME=" + home}, h.Env()...),
			Settings: settings.Options{Home: home}})
		if err != nil {
			b.Fatal(err)
		}
		store := session.NewStore()
		start := time.Now()
		if err := reg.Attach(context.Background(), store); err != nil {
			b.Fatal(err)
		}
		storm(store, 100_000)
		for {
			info, _ := h.Agent(h.Pane)
			if info.AgentStatus == "blocked" {
				break
			}
			time.Sleep(time.Millisecond)
		}
		elapsed := time.Since(start)
		calls, _ := h.Calls()
		b.ReportMetric(float64(len(calls)), "cli-calls")
		b.ReportMetric(float64(elapsed/(10*time.Millisecond)+2), "bound-calls")
		b.ReportMetric(float64(elapsed.Milliseconds()), "elapsed-ms")
		if err := reg.Detach(context.Background()); err != nil {
			b.Fatal(err)
		}
		h.Close()
	}
}
