package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// approvalTitle is what the approval prompt asks. It stays in the chat
// service: Herdr only ever gets the fixed text "Waiting for approval".
const approvalTitle = "Run migrations?"

// stepKind says what a step does and so what it waits for.
type stepKind uint8

const (
	stepAttach   stepKind = iota // registry.Attach: the pane is claimed
	stepEvent                    // a host event fed to the session.Store
	stepSettings                 // herdr.enabled rewritten in the project file
	stepDetach                   // registry.Detach: the pane is released
)

// step is one line of the timeline.
type step struct {
	kind    stepKind
	event   string               // what the host did, as printed
	apply   func(*session.Store) // stepEvent
	enabled bool                 // stepSettings: the new herdr.enabled
}

// script is the chat session the demo plays. What each step should lead to
// is not written here: it is what reducer.Reduce says of the store's
// snapshot, and the demo checks that the registry delivers exactly that and
// that Herdr shows it.
func script() []step {
	return []step{
		{kind: stepAttach, event: "session attached (registry.Attach)"},
		{kind: stepEvent, event: "agent turn starts, calls a tool",
			apply: func(s *session.Store) { s.AgentStart() }},
		{kind: stepEvent, event: fmt.Sprintf("approval prompt: %q", approvalTitle),
			apply: func(s *session.Store) { s.PromptStart("approve-1", session.PromptApproval) }},
		{kind: stepEvent, event: "person approves, tool runs",
			apply: func(s *session.Store) { s.PromptEnd("approve-1") }},
		{kind: stepEvent, event: `agent starts workflow "migrate"`,
			apply: func(s *session.Store) {
				s.SetWorkflows(session.Workflows{Executing: true})
			}},
		{kind: stepEvent, event: "agent settles, workflow runs on",
			apply: func(s *session.Store) { s.AgentSettled() }},
		{kind: stepEvent, event: "workflow needs the person",
			apply: func(s *session.Store) {
				s.SetWorkflows(session.Workflows{AwaitingInput: true, NeedsAttention: true})
			}},
		{kind: stepSettings, event: "project: herdr.enabled = false", enabled: false},
		{kind: stepEvent, event: "person answers, workflow goes on",
			apply: func(s *session.Store) {
				s.SetWorkflows(session.Workflows{AutomaticContinuation: true})
			}},
		{kind: stepSettings, event: "project: herdr.enabled = true", enabled: true},
		{kind: stepEvent, event: "workflow stream drops out",
			apply: func(s *session.Store) { s.SetWorkflows(session.Workflows{Unknown: true}) }},
		{kind: stepEvent, event: "stream back: workflow completed",
			apply: func(s *session.Store) {
				s.SetWorkflows(session.Workflows{}) // no unfinished root
			}},
		{kind: stepDetach, event: "session ends (registry.Detach)"},
	}
}

// play runs the steps in order, printing one line per step once its effect
// shows.
func (d *demo) play(ctx context.Context, steps []step) error {
	d.start = time.Now()
	for i, s := range steps {
		if i > 0 && d.cfg.pace > 0 {
			t := time.NewTimer(d.cfg.pace)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		report, v, err := d.do(ctx, s)
		if err != nil {
			return fmt.Errorf("step %d, %q: %w", i+1, s.event, err)
		}
		if v.Status == "done" && v.claimed() {
			d.sawDone = true
		}
		// The running adapter's details; an adapter that is not open
		// shows only its driver's preview of its setup.
		if st := d.herdrStatus(); st.Details != nil && st.Lifecycle == registry.LifecycleActive {
			d.details = st.Details
		}
		d.row(fmt.Sprintf("%.3fs", time.Since(d.start).Seconds()), s.event, report, v.String())
	}
	return nil
}

// do applies one step and waits until its effect shows. It returns the text
// of the reduced-report column and what Herdr shows.
func (d *demo) do(ctx context.Context, s step) (string, paneView, error) {
	before := d.herdrStatus().Counters
	switch s.kind {
	case stepAttach:
		if err := d.reg.Attach(ctx, d.store); err != nil {
			return "", paneView{}, err
		}
		if st := d.herdrStatus(); st.Lifecycle != registry.LifecycleActive {
			return "", paneView{}, &inactiveError{state: string(st.Lifecycle), why: st.Why}
		}
		rep, text := d.expectCurrent()
		v, err := d.awaitReport(ctx, before, rep)
		return text + "  [pane claimed]", v, err

	case stepEvent:
		s.apply(d.store)
		rep, ok := reducer.Reduce(d.store.Snapshot())
		switch {
		case !d.enabled:
			// No adapter runs: nothing is sent and the pane stays free.
			v, err := d.await(ctx, "the pane to stay released", func(st registry.AdapterStatus, v paneView) bool {
				return st.Lifecycle == registry.LifecycleDisabled && st.Counters.Delivered == before.Delivered && !v.claimed()
			})
			return reportText(rep, ok) + "  [not sent: off]", v, err
		case !ok:
			// The workflow stream is down: what the workflows do is unknown,
			// which is not the same as idle. Nothing new is sent.
			v, err := d.await(ctx, "an unknown snapshot, the last report standing", func(st registry.AdapterStatus, v paneView) bool {
				return st.Counters.Unknown > before.Unknown && v.shows(d.shown)
			})
			return reportText(rep, ok) + "  [last one stands]", v, err
		case rep == d.shown:
			v, err := d.await(ctx, "an unchanged report, not resent", func(st registry.AdapterStatus, v paneView) bool {
				return st.Counters.Unchanged > before.Unchanged && v.shows(d.shown)
			})
			return reportText(rep, ok) + "  [unchanged, not resent]", v, err
		default:
			v, err := d.awaitReport(ctx, before, rep)
			return reportText(rep, ok), v, err
		}

	case stepSettings:
		if err := writeFile(d.projectFile, fmt.Sprintf(projectSettings, s.enabled)); err != nil {
			return "", paneView{}, err
		}
		d.enabled = s.enabled
		if !s.enabled {
			v, err := d.await(ctx, "the adapter disabled and the pane released", func(st registry.AdapterStatus, v paneView) bool {
				return st.Lifecycle == registry.LifecycleDisabled && st.EnabledBy == settings.LayerProject && !v.claimed()
			})
			return "herdr adapter off  [pane released]", v, err
		}
		// Re-enabled: a new adapter claims the pane and sends the current
		// state at once.
		rep, text := d.expectCurrent()
		v, err := d.awaitReport(ctx, before, rep)
		return text + "  [re-claimed]", v, err

	case stepDetach:
		dctx, cancel := context.WithTimeout(ctx, d.cfg.timeout)
		err := d.reg.Detach(dctx)
		cancel()
		if err != nil {
			return "", paneView{}, err
		}
		v, err := d.await(ctx, "the pane released", func(_ registry.AdapterStatus, v paneView) bool { return !v.claimed() })
		return "detached  [pane released]", v, err
	}
	return "", paneView{}, fmt.Errorf("unknown step kind %d", s.kind)
}

// expectCurrent returns the report the current snapshot reduces to and its
// column text. The script never attaches or re-enables Herdr while the
// workflow state is unknown, so there is always a report to expect.
func (d *demo) expectCurrent() (adapter.Report, string) {
	rep, ok := reducer.Reduce(d.store.Snapshot())
	return rep, reportText(rep, ok)
}

// awaitReport waits until the registry has delivered rep (one more delivery
// than before) and Herdr shows it.
func (d *demo) awaitReport(ctx context.Context, before registry.Counters, rep adapter.Report) (paneView, error) {
	want := "report " + compact(rep.State.String(), rep.Reason.String(), rep.Message.String()) + " delivered and shown"
	v, err := d.await(ctx, want, func(st registry.AdapterStatus, v paneView) bool {
		return st.Lifecycle == registry.LifecycleActive && st.Counters.Delivered > before.Delivered &&
			sameReport(st.LastReport, rep) && v.shows(rep)
	})
	if err == nil {
		d.shown = rep
	}
	return v, err
}

// errNotShown is wrapped by the error of a step that did not show in time.
var errNotShown = errors.New("not reached")

// await polls the registry's Explain and the pane until ok holds, for at
// most the step timeout. The registry and Herdr work on their own
// goroutines and processes; polling with a deadline is how an outside
// observer (like a person looking at the pane) sees them.
func (d *demo) await(ctx context.Context, want string, ok func(registry.AdapterStatus, paneView) bool) (paneView, error) {
	wctx, cancel := context.WithTimeout(ctx, d.cfg.timeout)
	defer cancel()
	interval := 5 * time.Millisecond
	if d.emu == nil {
		interval = 50 * time.Millisecond // each look at a real pane runs the herdr CLI
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		st := d.herdrStatus()
		// The read is bounded by its own timeout, not by the step's
		// deadline, so that the last look at the pane is complete.
		v, err := d.pane(ctx)
		if err == nil && ok(st, v) {
			return v, nil
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return v, ctx.Err()
			}
			if err != nil {
				return v, fmt.Errorf("waiting for %s: reading the pane: %w", want, err)
			}
			last := "none"
			if st.LastReport != nil {
				last = compact(st.LastReport.State.String(), st.LastReport.Reason.String(), st.LastReport.Message.String())
			}
			return v, fmt.Errorf("waiting for %s: %w within %s\n  registry: herdr adapter %s, last delivered %s, counters %+v\n  herdr shows: %s",
				want, errNotShown, d.cfg.timeout, st.Lifecycle, last, st.Counters, v)
		case <-tick.C:
		}
	}
}

// herdrStatus returns the Herdr adapter's part of registry.Explain.
func (d *demo) herdrStatus() registry.AdapterStatus {
	for _, a := range d.reg.Explain().Adapters {
		if a.Name == "herdr" {
			return a
		}
	}
	return registry.AdapterStatus{Name: "herdr", Why: "not among the registry's drivers"}
}

func sameReport(last *adapter.Report, r adapter.Report) bool {
	return last != nil && *last == r
}

// reportText renders a reduced report for the timeline.
func reportText(r adapter.Report, ok bool) string {
	if !ok {
		return fmt.Sprintf("%-8s (unknown) no new report", "-")
	}
	s := fmt.Sprintf("%-8s (%s)", r.State, r.Reason)
	if m := r.Message.String(); m != "" {
		s += fmt.Sprintf(" %q", m)
	}
	return s
}

// compact renders a report in one short phrase, for error messages.
func compact(state, reason, message string) string {
	s := state + " (" + reason + ")"
	if message != "" {
		s += fmt.Sprintf(" %q", message)
	}
	return s
}

// row prints one timeline line in fixed columns.
func (d *demo) row(elapsed, event, report, herdr string) {
	fmt.Fprintf(d.out, "  %7s  %-34s  %-52s  %s\n", elapsed, event, report, herdr)
}

// argv renders a herdr invocation as a person would type it.
func argv(args []string) string {
	out := []string{"herdr"}
	for _, a := range args {
		out = append(out, shellQuote(a))
	}
	return strings.Join(out, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
