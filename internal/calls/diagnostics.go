package calls

import (
	"strconv"
	"sync"

	"github.com/panestate/panestate/adapter"
)

// Diagnostics sends an adapter's diagnostics to its sink at most once per
// kind and claim, and counts every one. Create one with [NewDiagnostics].
// All its methods are safe for concurrent use; the sink is called without
// any lock held, from the goroutine that emits.
type Diagnostics struct {
	name string
	sink func(adapter.Diagnostic)

	mu     sync.Mutex
	counts map[adapter.Kind]uint64
	sent   map[adapter.Kind]bool // kinds sent in this claim
}

// NewDiagnostics returns the diagnostics of the adapter registered as name
// (adapter.Params.Name), sent to sink (adapter.Params.Diagnose). A nil sink
// drops them; they are still counted.
func NewDiagnostics(name string, sink func(adapter.Diagnostic)) *Diagnostics {
	if sink == nil {
		sink = func(adapter.Diagnostic) {}
	}
	return &Diagnostics{name: name, sink: sink, counts: map[adapter.Kind]uint64{}, sent: map[adapter.Kind]bool{}}
}

// Emit counts a diagnostic of kind and, unless one of that kind was already
// sent in this claim, sends it, its detail formatted and bounded by
// [adapter.NewDiagnostic]. It reports whether it sent.
func (d *Diagnostics) Emit(kind adapter.Kind, format string, args ...any) (sent bool) {
	d.mu.Lock()
	d.counts[kind]++
	seen := d.sent[kind]
	d.sent[kind] = true
	d.mu.Unlock()
	if !seen {
		d.sink(adapter.NewDiagnostic(d.name, kind, format, args...))
	}
	return !seen
}

// Send counts a diagnostic of kind and sends it whatever was sent before,
// for a condition the adapter limits by itself (one diagnostic in the
// adapter's life, say). It does not change what Emit sends.
func (d *Diagnostics) Send(kind adapter.Kind, format string, args ...any) {
	d.Tally(kind)
	d.sink(adapter.NewDiagnostic(d.name, kind, format, args...))
}

// Tally counts a diagnostic of kind without sending anything.
func (d *Diagnostics) Tally(kind adapter.Kind) {
	d.mu.Lock()
	d.counts[kind]++
	d.mu.Unlock()
}

// Reset starts a new claim: the next diagnostic of every kind is sent
// again. Counts are kept.
func (d *Diagnostics) Reset() {
	d.mu.Lock()
	clear(d.sent)
	d.mu.Unlock()
}

// AddDetails sets m["diag.<kind>"] to the count of each kind counted so far,
// for the adapter's own Details.
func (d *Diagnostics) AddDetails(m map[string]string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, n := range d.counts {
		m["diag."+string(k)] = strconv.FormatUint(n, 10)
	}
}
