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

// owner is what the lease table knows of an adapter: the pane it reports
// to and its generation. Adapters opened later have higher generations and
// are successors of those opened earlier. The zero owner is nobody.
type owner struct {
	key paneKey
	gen uint64
}

// lease is the process-wide ownership record of one pane.
type lease struct {
	// run admits one call for this pane at a time, across every adapter of
	// the process. A successor waits on it for its predecessor's in-flight
	// call to finish.
	run chan struct{}

	// Guarded by leaseTable.mu.
	holder uint64 // generation of the adapter that owns the pane, or 0
	fence  uint64 // the newest generation that ever claimed the pane
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

// newOwner returns an owner of k newer than every earlier one.
func (t *leaseTable) newOwner(k paneKey) owner {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gens++
	return owner{key: k, gen: t.gens}
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
	claimHeld  claimResult = iota // o already held the pane
	claimNew                      // o took the pane, retiring any predecessor
	claimStale                    // a newer owner claimed the pane: o is retired
)

// claim makes o the owner of its pane unless a newer owner has claimed it.
// A predecessor holding the pane is retired: it stays fenced forever. Its
// in-flight call, if any, still holds l.run; the caller waits on that.
func (t *leaseTable) claim(o owner) (*lease, claimResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.getLocked(o.key)
	switch {
	case l.holder == o.gen:
		return l, claimHeld
	case o.gen < l.fence:
		return l, claimStale
	}
	l.holder, l.fence = o.gen, o.gen
	return l, claimNew
}

// holds reports whether o still owns its pane.
func (t *leaseTable) holds(o owner) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.m[o.key]
	return l != nil && l.holder == o.gen
}

// retired reports whether a newer owner has claimed o's pane.
func (t *leaseTable) retired(o owner) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.m[o.key]
	return l != nil && o.gen < l.fence
}

// free gives up o's ownership, if it has it, without telling Herdr.
func (t *leaseTable) free(o owner) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.m[o.key]; l != nil && l.holder == o.gen {
		l.holder = 0
	}
}

// acquire waits for the pane's call slot. It gives up with ctx's error when
// ctx ends, and with [adapter.ErrClosed] when closed (the waiting adapter's
// done context) ends first: Close does not wait for another adapter's call.
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
