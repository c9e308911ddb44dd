package registry

import (
	"context"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/session"
)

// hookDriver wraps a real driver so that a test learns, through a channel,
// when each Report and Release of its adapters has returned, instead of
// polling. Every optional interface is passed through.
type hookDriver struct {
	d      adapter.Driver
	events chan hookEvent
	// gate, when set, holds every Report until it is closed: the test
	// decides how long a call is in flight.
	gate chan struct{}
	// hold, when set, holds every Report after the wrapped one has
	// returned, whatever its ctx, until it is closed: an adapter that
	// ignores its cancelled ctx past the release budget. "held" is sent
	// when a Report starts to wait for it.
	hold chan struct{}
}

// hookEvent is one call: "enter" when Report starts, then "report" (with
// the report) when it returns ("held" before, when hold is set), "release"
// when Release returns, "close" when Close returns.
type hookEvent struct {
	call string
	rep  adapter.Report
	err  error
}

func newHookDriver(d adapter.Driver) *hookDriver {
	return &hookDriver{d: d, events: make(chan hookEvent, 1<<16)}
}

func (h *hookDriver) Open(ctx context.Context, p adapter.Params) (adapter.Adapter, error) {
	a, err := h.d.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return &hookAdapter{a: a, events: h.events, gate: h.gate, hold: h.hold}, nil
}

func (h *hookDriver) Settings() (bool, []string) {
	def, keys := optional.Settings(h.d)
	return def, keys[1:]
}
func (h *hookDriver) Check(p adapter.Params) error       { return optional.Check(h.d, p) }
func (h *hookDriver) ScrubEnv(e adapter.Env) adapter.Env { return optional.ScrubEnv(h.d, e) }

// next waits for the next event of the given call whose report satisfies ok
// (nil: any).
func (h *hookDriver) next(t testing.TB, call string, ok func(adapter.Report, error) bool) hookEvent {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-h.events:
			if ev.call == call && (ok == nil || ok(ev.rep, ev.err)) {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s event came", call)
			return hookEvent{}
		}
	}
}

type hookAdapter struct {
	a      adapter.Adapter
	events chan hookEvent
	gate   chan struct{}
	hold   chan struct{}
}

func (h *hookAdapter) Report(ctx context.Context, r adapter.Report) error {
	h.events <- hookEvent{call: "enter", rep: r}
	if h.gate != nil {
		select {
		case <-h.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := h.a.Report(ctx, r)
	if h.hold != nil {
		h.events <- hookEvent{call: "held", rep: r, err: err}
		<-h.hold
	}
	h.events <- hookEvent{call: "report", rep: r, err: err}
	return err
}

func (h *hookAdapter) Release(ctx context.Context) error {
	err := optional.Release(ctx, h.a)
	h.events <- hookEvent{call: "release", err: err}
	return err
}

func (h *hookAdapter) Close(ctx context.Context) error {
	err := optional.Close(ctx, h.a)
	h.events <- hookEvent{call: "close", err: err}
	return err
}
func (h *hookAdapter) SetSession(id session.Identity) { optional.SetSession(h.a, id) }
func (h *hookAdapter) Details() map[string]string     { return optional.Details(h.a) }
func (h *hookAdapter) OwnsPane() bool                 { return optional.OwnsPane(h.a) }
func (h *hookAdapter) RefreshInterval(r adapter.Report) time.Duration {
	return optional.RefreshInterval(h.a, r)
}
