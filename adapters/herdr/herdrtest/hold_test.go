package herdrtest

import (
	"slices"
	"testing"
)

// TestHoldAppliesInArrivalOrder: a held report, from the fake CLI, and a
// release that arrives behind it, over the socket, are applied only on
// Resume, in the order they arrived; the release sent after the report
// leaves the pane released, and the pane showed nothing meanwhile.
func TestHoldAppliesInArrivalOrder(t *testing.T) {
	r := newRunner(t, Options{})
	h := r.h
	hold := h.Hold()
	reported := make(chan result, 1)
	go func() { reported <- r.run(report(h.Pane, src, lbl, "working", "--seq", "10")...) }()
	if err := hold.Held(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	released := make(chan result, 1)
	go func() { released <- r.on(TransportSocket).run(release(h.Pane, src, lbl, "--seq", "11")...) }()
	if err := hold.Held(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	if info, err := h.Agent(h.Pane); err != nil || info.Found {
		t.Fatalf("while held the pane shows %+v (%v), want nothing applied", info, err)
	}
	hold.Resume()
	if res := <-reported; res.Code != 0 {
		t.Errorf("held report: %+v", res)
	}
	if res := <-released; res.Code != 0 {
		t.Errorf("held release: %+v", res)
	}
	r.agent(h.Pane, "", "unknown")
	r.hwm(h.Pane, src, 11, true)
	calls, err := h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(calls, func(a, b Call) int { return a.Arrival - b.Arrival })
	var order []string
	for _, c := range calls {
		if c.Command != "ping" && c.Arrival > 0 {
			order = append(order, c.Command)
		}
	}
	if len(order) != 2 || order[0] != "pane report-agent" || order[1] != "pane release-agent" {
		t.Errorf("applied in the order %q, want the report, then the release", order)
	}
	// After Resume nothing is held: a later request goes straight through.
	r.ok(report(h.Pane, src, lbl, "blocked", "--seq", "12")...)
	r.agent(h.Pane, lbl, "blocked")
}
