package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// fakeDriver is a configurable driver registered under a unique name per
// test.
type fakeDriver struct {
	tag      string // names the driver in the event log
	def      bool   // enabled by default
	inactive error  // Open and Check return this
	// needsForce makes Open and Check inactive unless a layer set
	// "enabled": true (Params.Forced), as the terminal adapter in a
	// terminal it does not know.
	needsForce bool
	openErr    func(p adapter.Params) error
	// validate, when set, is the settings part of the driver's Check, and Open
	// fails with its error after Check passes, as a real driver does.
	validate func(section json.RawMessage) error
	keys     []string
	discard  bool          // adapters do not record reports (benchmarks)
	block    chan struct{} // adapters start blocked on this
	// onOpen, when set, runs inside Open, before the adapter exists.
	onOpen func()
	// refresh is the adapters' RefreshInterval.
	refresh time.Duration
	// releaseFails makes the first releaseFails releases fail.
	releaseFails int
	// releaseTakes makes every Release take this long (honouring its ctx);
	// negative: until ctx ends.
	releaseTakes time.Duration
	// onClose, when set, runs inside Close.
	onClose func()

	mu     sync.Mutex
	opened []*fakeAdapter
	events *eventLog
}

func (d *fakeDriver) Settings() (bool, []string) { return d.def, d.keys }

func (d *fakeDriver) Check(p adapter.Params) error {
	if d.needsForce && !p.Forced {
		return errNotForced
	}
	if d.inactive != nil {
		return d.inactive
	}
	if d.validate == nil {
		return nil
	}
	return d.validate(p.Settings)
}

// errNotForced is the inactive error of a driver with needsForce.
var errNotForced = fmt.Errorf("%w: not forced on", adapter.ErrInactive)

func (d *fakeDriver) Open(_ context.Context, p adapter.Params) (adapter.Adapter, error) {
	if err := d.Check(p); err != nil {
		return nil, err
	}
	if d.openErr != nil {
		if err := d.openErr(p); err != nil {
			return nil, err
		}
	}
	if d.onOpen != nil {
		d.onOpen()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	a := &fakeAdapter{n: len(d.opened), tag: d.tag, settings: string(p.Settings), events: d.events,
		reports: make(chan adapter.Report, 1000), entered: make(chan adapter.Report, 1000),
		diagnose: p.Diagnose, discard: d.discard, block: d.block,
		refresh: d.refresh, onClose: d.onClose, releaseTakes: d.releaseTakes}
	a.releaseFails.Store(int32(d.releaseFails))
	d.opened = append(d.opened, a)
	d.events.add(fmt.Sprintf("open %s%d", d.tag, a.n))
	return a, nil
}

func (d *fakeDriver) adapters() []*fakeAdapter {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*fakeAdapter(nil), d.opened...)
}

// eventLog records lifecycle events across adapters, in order.
type eventLog struct {
	mu      sync.Mutex
	ev      []string
	changed chan struct{} // closed and replaced by every add
}

func (l *eventLog) add(s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.ev = append(l.ev, s)
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	l.mu.Unlock()
}

// wait waits until ev has been logged.
func (l *eventLog) wait(t testing.TB, ev string) {
	t.Helper()
	for {
		l.mu.Lock()
		if slices.Contains(l.ev, ev) {
			l.mu.Unlock()
			return
		}
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("event %q not logged; log: %v", ev, l.all())
		}
	}
}

func (l *eventLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ev...)
}

type fakeAdapter struct {
	n        int
	tag      string
	settings string
	events   *eventLog
	diagnose func(adapter.Diagnostic)
	reports  chan adapter.Report // successful reports
	entered  chan adapter.Report // every Report call, when it starts
	discard  bool
	refresh  time.Duration
	onClose  func()

	releaseFails atomic.Int32 // fail this many more releases
	releaseTakes time.Duration

	fail  atomic.Int32 // fail this many more calls
	calls atomic.Int32
	block chan struct{} // when set, Report waits for it or ctx
	// refreshBlock, when set, holds RefreshInterval until it is closed.
	refreshBlock chan struct{}
	blockMu      sync.Mutex
	panicky      atomic.Bool
	// panicIn names a method other than Report that panics ("SetSession",
	// "Details").
	panicIn   atomic.Value
	ignoreCtx atomic.Bool // a blocked Report waits for the block channel only
	closed    atomic.Bool

	mu       sync.Mutex
	released int
	session  session.Identity
}

func (a *fakeAdapter) setBlock(ch chan struct{}) {
	a.blockMu.Lock()
	a.block = ch
	a.blockMu.Unlock()
}

func (a *fakeAdapter) Report(ctx context.Context, r adapter.Report) error {
	a.calls.Add(1)
	if !a.discard {
		select {
		case a.entered <- r:
		default:
		}
	}
	if a.closed.Load() {
		return adapter.ErrClosed
	}
	if a.panicky.Load() {
		panic("fake adapter panics")
	}
	a.blockMu.Lock()
	block := a.block
	a.blockMu.Unlock()
	if block != nil {
		if a.ignoreCtx.Load() {
			<-block
		} else {
			select {
			case <-block:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	if a.fail.Load() > 0 {
		a.fail.Add(-1)
		return errors.New("fake delivery failure")
	}
	if !a.discard {
		a.reports <- r
	}
	return nil
}

func (a *fakeAdapter) Release(ctx context.Context) error {
	if a.closed.Load() {
		return adapter.ErrClosed
	}
	if a.releaseTakes != 0 {
		var after <-chan time.Time
		if a.releaseTakes > 0 {
			after = time.After(a.releaseTakes)
		}
		select {
		case <-after:
		case <-ctx.Done():
			a.events.add(fmt.Sprintf("release timed out %s%d", a.tag, a.n))
			return ctx.Err()
		}
	}
	if a.releaseFails.Add(-1) >= 0 {
		a.events.add(fmt.Sprintf("release failed %s%d", a.tag, a.n))
		return errors.New("fake release failure")
	}
	a.mu.Lock()
	a.released++
	a.mu.Unlock()
	a.events.add(fmt.Sprintf("release %s%d", a.tag, a.n))
	return nil
}

func (a *fakeAdapter) Close(context.Context) error {
	if a.onClose != nil {
		a.onClose()
	}
	if !a.closed.Swap(true) {
		a.events.add(fmt.Sprintf("close %s%d", a.tag, a.n))
	}
	return nil
}

// RefreshInterval waits for the refresh block, when one is set: a worker
// busy outside Report, which no cancellation reaches.
func (a *fakeAdapter) RefreshInterval(adapter.Report) time.Duration {
	a.blockMu.Lock()
	block := a.refreshBlock
	a.blockMu.Unlock()
	if block != nil {
		<-block
	}
	return a.refresh
}

func (a *fakeAdapter) setRefreshBlock(ch chan struct{}) {
	a.blockMu.Lock()
	a.refreshBlock = ch
	a.blockMu.Unlock()
}

func (a *fakeAdapter) releases() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.released
}

// inReport waits until the adapter has entered its next Report call.
func (a *fakeAdapter) inReport(t *testing.T) adapter.Report {
	t.Helper()
	select {
	case r := <-a.entered:
		return r
	case <-t.Context().Done():
		t.Fatal("test ended waiting for a Report call")
	}
	return adapter.Report{}
}

func (a *fakeAdapter) panics(method string) bool {
	m, _ := a.panicIn.Load().(string)
	return m == method
}

func (a *fakeAdapter) SetSession(id session.Identity) {
	if a.panics("SetSession") {
		panic("fake SetSession panics")
	}
	a.mu.Lock()
	a.session = id
	a.mu.Unlock()
}

func (a *fakeAdapter) Details() map[string]string {
	if a.panics("Details") {
		panic("fake Details panics")
	}
	return map[string]string{"n": fmt.Sprint(a.n)}
}

// next waits for the adapter's next successful report.
func (a *fakeAdapter) next(t *testing.T) adapter.Report {
	t.Helper()
	select {
	case r := <-a.reports:
		return r
	case <-t.Context().Done():
		t.Fatal("test ended waiting for a report")
	}
	return adapter.Report{}
}

var driverSeq atomic.Int64

// fakes holds the drivers register made, by name, for pick.
var fakes sync.Map

// register keeps d under a fresh name, for pick, and returns the name.
func register(d *fakeDriver) string {
	name := fmt.Sprintf("fake%04d", driverSeq.Add(1)) // padded: registered order is name order
	fakes.Store(name, d)
	return name
}

// attachedFake attaches a registry with one fake adapter, enabled by default,
// to a fresh store, and waits for the adapter's first report (the state at
// Attach).
func attachedFake(t *testing.T) (*Registry, *session.Store, *fakeAdapter) {
	t.Helper()
	return attachedDriver(t, &fakeDriver{def: true})
}

// attachedDriver is attachedFake with the given driver, registered under a
// fresh name (d's first adapter is the one returned).
func attachedDriver(t *testing.T, d *fakeDriver) (*Registry, *session.Store, *fakeAdapter) {
	t.Helper()
	r := mustNew(t, testOptions(t, register(d)))
	store := session.NewStore()
	if err := r.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	a := d.adapters()[0]
	a.inReport(t)
	a.next(t)
	return r, store, a
}

// diagCount returns how many diagnostics of kind k st counts.
func diagCount(st AdapterStatus, k adapter.Kind) uint64 {
	for _, d := range st.Diagnostics {
		if d.Kind == k {
			return d.Count
		}
	}
	return 0
}
