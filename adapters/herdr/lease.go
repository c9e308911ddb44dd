package herdr

import (
	"context"
	"sync"

	"github.com/panestate/panestate/adapter"
)

// paneKey names one pane of one Herdr server. Pane ids are only unique
// within a server, so the socket path is part of the key.
type paneKey struct {
	socket, pane string
}

// lease is the process-wide ownership record of one pane.
type lease struct {
	// run admits one CLI child for this pane at a time, across every
	// adapter of the process. A successor waits on it for its
	// predecessor's in-flight child to finish.
	run chan struct{}

	// Guarded by leaseTable.mu.
	holder *Adapter // the adapter that owns the pane, or nil
	fence  uint64   // the newest generation that ever claimed the pane
}

// leaseTable is the process-wide table of pane leases.
type leaseTable struct {
	mu   sync.Mutex
	m    map[paneKey]*lease
	gens uint64 // the last generation handed out
}

// leases must be process-wide: adapters come and go (a settings reload opens
// a successor before the predecessor is closed; a host may build several
// registries), but a pane has one owner per process, and a late callback of
// an old adapter must be recognised as stale by every newer one. An entry is
// small and is kept for the life of the process so that the fence outlives
// every adapter that saw it; a process claims one pane in practice.
var leases = leaseTable{m: make(map[paneKey]*lease)}

// nextGen returns a generation newer than every earlier one. Adapters opened
// later are successors of adapters opened earlier.
func (t *leaseTable) nextGen() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gens++
	return t.gens
}

func (t *leaseTable) getLocked(k paneKey) *lease {
	l := t.m[k]
	if l == nil {
		l = &lease{run: make(chan struct{}, 1)}
		t.m[k] = l
	}
	return l
}

// claimResult is what claim found.
type claimResult uint8

const (
	claimHeld  claimResult = iota // a already held the pane
	claimNew                      // a took the pane, retiring any predecessor
	claimStale                    // a newer adapter claimed the pane: a is retired
)

// claim makes a the owner of its pane unless a newer adapter has claimed it.
// A predecessor holding the pane is retired: it stays fenced forever. Its
// in-flight child, if any, still holds l.run; the caller waits on that.
func (t *leaseTable) claim(a *Adapter) (*lease, claimResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.getLocked(a.key)
	switch {
	case l.holder == a:
		return l, claimHeld
	case a.gen < l.fence:
		return l, claimStale
	}
	l.holder, l.fence = a, a.gen
	return l, claimNew
}

// holds reports whether a still owns its pane.
func (t *leaseTable) holds(a *Adapter) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.m[a.key]
	return l != nil && l.holder == a
}

// retired reports whether a newer adapter has claimed a's pane.
func (t *leaseTable) retired(a *Adapter) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.m[a.key]
	return l != nil && a.gen < l.fence
}

// free gives up a's ownership, if it has it, without telling Herdr.
func (t *leaseTable) free(a *Adapter) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.m[a.key]; l != nil && l.holder == a {
		l.holder = nil
	}
}

// acquire waits for the pane's child slot. It gives up with ctx's error
// when ctx ends, and with [adapter.ErrClosed] when closed (the waiting
// adapter's done context) ends first: Close does not wait for another
// adapter's child.
func (l *lease) acquire(ctx, closed context.Context) error {
	select {
	case l.run <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-closed.Done():
		return adapter.ErrClosed
	}
	if closed.Err() != nil { // both were ready and select took the slot
		<-l.run
		return adapter.ErrClosed
	}
	return nil
}

func (l *lease) releaseSlot() { <-l.run }

// highWaterTable holds, per pane, the newest sequence number this process
// gave it.
type highWaterTable struct {
	mu sync.Mutex
	m  map[paneKey]uint64
}

// highWater must be process-wide: Herdr silently ignores any report whose
// sequence number is not above the last one it accepted from the same source
// in the same pane, and it keeps that mark across releases. A counter held
// by an adapter would restart below the mark after a settings reload, a
// registry being re-created, or the wall clock stepping back, and every
// report after that would vanish without an error.
var highWater = highWaterTable{m: make(map[paneKey]uint64)}

// next returns max(clockMs, mark+1, floor+1) for k and records it. A mark
// or floor at the top of the uint64 range (a corrupt file) wraps to 0 and so
// drops out, rather than pinning every later number where Herdr ignores it.
func (h *highWaterTable) next(k paneKey, clockMs, floor uint64) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	seq := max(clockMs, h.m[k]+1, floor+1)
	h.m[k] = seq
	return seq
}

// reset forgets every mark, as a fresh process would. Tests only.
func (h *highWaterTable) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.m)
}
