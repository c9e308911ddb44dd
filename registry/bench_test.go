package registry

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// BenchmarkPublish measures what a chat service pays to publish an event with
// one adapter attached: "free" returns at once, "stuck" never returns from
// Report. The two must cost the same: publishing never waits on an adapter.
func BenchmarkPublish(b *testing.B) {
	for _, tc := range []struct {
		name  string
		stuck bool
	}{{"free", false}, {"stuck", true}} {
		b.Run(tc.name, func(b *testing.B) {
			d := &fakeDriver{def: true, discard: true}
			if tc.stuck {
				// Never closed: Report returns only when Detach cancels it,
				// so no goroutine outlives the benchmark.
				d.block = make(chan struct{})
			}
			opts := Options{App: "bench", Host: tuiHost, Env: []string{}, StaticSettings: true, Drivers: pick(register(d))}
			opts.Settings.Home = b.TempDir()
			r, err := New(opts)
			if err != nil {
				b.Fatal(err)
			}
			store := session.NewStore()
			if err := r.Attach(context.Background(), store); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i&1 == 0 {
					store.AgentStart()
				} else {
					store.AgentSettled()
				}
			}
			b.StopTimer()
			// A stuck adapter's report is withdrawn, waited for half the
			// release budget, then cancelled: Detach says so.
			err = r.Detach(context.Background())
			switch {
			case !tc.stuck && err != nil:
				b.Fatal(err)
			case tc.stuck && (err == nil || !strings.Contains(err.Error(), "report in flight")):
				b.Fatalf("Detach with a stuck report = %v, want an error naming the abandoned report", err)
			}
			if a := d.adapters()[0]; !a.closed.Load() {
				b.Fatal("the adapter was not closed by Detach")
			}
		})
	}
}

// BenchmarkAttachDetachInactive measures Attach + Detach outside every
// workspace, with the built-in drivers and live settings on, and reports how
// many goroutines are left afterwards (must be 0).
func BenchmarkAttachDetachInactive(b *testing.B) {
	home := b.TempDir()
	store := session.NewStore()
	before := runtime.NumGoroutine()
	b.ReportAllocs()
	for b.Loop() {
		r, err := New(Options{App: "bench", Host: tuiHost, Env: []string{"PATH=/usr/bin"},
			Settings: settings.Options{Home: home}, Drivers: pick("herdr", "noop")})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Attach(context.Background(), store); err != nil {
			b.Fatal(err)
		}
		if err := r.Detach(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(runtime.NumGoroutine()-before), "goroutines-left")
}
