package registry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/settingsengine"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// pane is one workspace pane shared by every adapter a driver opens, as a
// Herdr or tmux pane is shared by an adapter and its successor: a
// delivered report claims it, a release hands it back. It counts calls that
// overlap (two adapters inside the workspace at once).
type pane struct {
	inside   atomic.Int32 // adapters inside a call now
	overlaps atomic.Int32 // calls that found another adapter inside

	mu       sync.Mutex
	claimed  bool
	claims   int
	releases int
}

func (p *pane) enter() {
	if p.inside.Add(1) > 1 {
		p.overlaps.Add(1)
	}
}

func (p *pane) leave() { p.inside.Add(-1) }

// jitter yields the processor a random number of times, up to n: a
// random delay that synchronises nothing.
func jitter(rng *rand.Rand, n int) {
	for range rng.IntN(n + 1) {
		runtime.Gosched()
	}
}

// paneDriver opens paneAdapters on one pane.
type paneDriver struct {
	p   *pane
	rng func() *rand.Rand
}

func (d paneDriver) Settings() (bool, []string) { return true, []string{"n"} }

func (d paneDriver) Open(context.Context, adapter.Params) (adapter.Adapter, error) {
	return &paneAdapter{p: d.p, rng: d.rng()}, nil
}

type paneAdapter struct {
	p    *pane
	rng  *rand.Rand // used by one call at a time: calls never overlap
	used atomic.Bool
}

func (a *paneAdapter) Report(ctx context.Context, _ adapter.Report) error {
	a.used.Store(true)
	a.p.enter()
	defer a.p.leave()
	select {
	case <-adapter.Withdrawn(ctx):
		return adapter.ErrWithdrawn // nothing sent yet
	default:
	}
	jitter(a.rng, 20) // the request is on its way: it lands
	a.p.mu.Lock()
	if !a.p.claimed {
		a.p.claimed = true
		a.p.claims++
	}
	a.p.mu.Unlock()
	return nil
}

func (a *paneAdapter) Release(context.Context) error {
	a.used.Store(true)
	a.p.enter()
	defer a.p.leave()
	jitter(a.rng, 20)
	a.p.mu.Lock()
	if a.p.claimed {
		a.p.claimed = false
		a.p.releases++
	}
	a.p.mu.Unlock()
	return nil
}

// Close counts as a call to the workspace once the adapter has called it;
// closing one that never did (opened, then preempted) touches nothing.
func (a *paneAdapter) Close(context.Context) error {
	if a.used.Load() {
		a.p.enter()
		defer a.p.leave()
	}
	return nil
}

// Detach races a settings change that reopens the adapter (a successor
// swapped in), with random delays on every side, thousands of times: every
// pane claimed is released when Detach returns, Detach reports no error,
// and an adapter and its successor never call the workspace at once.
// PANESTATE_SOAK=1 runs 50,000 iterations instead of 2,000.
func TestStressDetachAgainstReopen(t *testing.T) {
	iterations := 2000
	if os.Getenv("PANESTATE_SOAK") == "1" {
		iterations = 50000
	}
	home := t.TempDir()
	base := Options{App: "paneapp", Host: tuiHost, Env: []string{}, Settings: settings.Options{Home: home}, StaticSettings: true}
	// Two settings that differ in the adapter's section: applying one after
	// the other reopens it.
	var curs [2]settingsengine.Settings
	for i := range curs {
		r := mustNew(t, withDriver(base, "p", paneDriver{}))
		writeSettings(t, r, fmt.Sprintf(`{"p": {"n": %d}}`, i+1))
		so := r.settingsOptions()
		so.Logger = hclog.NewNullLogger()
		var err error
		if curs[i], err = settingsengine.Load(so); err != nil {
			t.Fatal(err)
		}
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	var seq atomic.Uint64
	newRand := func() *rand.Rand { return rand.New(rand.NewPCG(seed, seq.Add(1))) }
	rng := newRand()
	var claims, releases, swaps, raced int
	for i := range iterations {
		p := &pane{}
		r, err := New(withDriver(base, "p", paneDriver{p: p, rng: newRand}))
		if err != nil {
			t.Fatal(err)
		}
		if rng.IntN(2) == 0 {
			r.window = 0
		}
		store := session.NewStore()
		if err := r.Attach(t.Context(), store); err != nil {
			t.Fatal(err)
		}
		r.mu.Lock()
		gen := r.gen
		r.mu.Unlock()
		var wg sync.WaitGroup
		wrng, srng := newRand(), newRand()
		var applying atomic.Bool // a settings change is being applied
		wg.Go(func() {
			for k := range 1 + wrng.IntN(3) {
				jitter(wrng, 200)
				applying.Store(true)
				r.onSettings(gen, curs[k%2])
				applying.Store(false)
			}
		})
		wg.Go(func() {
			jitter(srng, 100)
			store.AgentStart()
		})
		jitter(rng, 400)
		if applying.Load() {
			raced++
		}
		if err := r.Detach(context.Background()); err != nil {
			t.Fatalf("iteration %d: Detach: %v", i, err)
		}
		wg.Wait()
		r.bg.Wait()
		p.mu.Lock()
		claimed := p.claimed
		claims += p.claims
		releases += p.releases
		p.mu.Unlock()
		if claimed {
			t.Fatalf("iteration %d: the pane is still claimed after Detach (%d claims, %d releases)", i, p.claims, p.releases)
		}
		if n := p.overlaps.Load(); n != 0 {
			t.Fatalf("iteration %d: %d calls overlapped another adapter's", i, n)
		}
		if r.Explain().Adapters[0].Counters.Delivered > 1 {
			swaps++
		}
	}
	t.Logf("%d iterations: %d claims, %d releases, %d with more than one delivery, %d with Detach during a settings change", iterations, claims, releases, swaps, raced)
	if claims == 0 || claims != releases {
		t.Errorf("%d claims, %d releases; want every claim released", claims, releases)
	}
	// The race this test is for happened: some Detach began while a
	// settings change was being applied.
	if raced == 0 {
		t.Errorf("no Detach began during a settings change in %d iterations: the race was not exercised", iterations)
	}
}

// withDriver returns opts with d as its only driver, under name.
func withDriver(opts Options, name string, d adapter.Driver) Options {
	opts.Drivers = map[string]adapter.Driver{name: d}
	return opts
}
