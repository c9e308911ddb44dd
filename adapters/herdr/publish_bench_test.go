package herdr_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// BenchmarkPublishToApplied is the whole path on each transport: from a
// session.Store change (the agent starts or settles) to the state applied
// at the emulated Herdr's server, through the registry's reducer and
// delivery. Each op is one change; "median-µs" is the median over the ops
// of one sub-benchmark (the CLI side runs the re-executed test binary as
// the fake CLI).
func BenchmarkPublishToApplied(b *testing.B) {
	for _, tr := range []string{"cli", "socket"} {
		b.Run(tr, func(b *testing.B) {
			h := herdrtest.StartT(b, herdrtest.Options{InView: []string{"w1:p1"}})
			home := b.TempDir()
			env := append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, h.Env()...)
			global := filepath.Join(home, "settings.json")
			if err := os.WriteFile(global, []byte(`{"herdr":{"transport":"`+tr+`"}}`), 0o600); err != nil {
				b.Fatal(err)
			}
			reg, err := registry.New(registry.Options{
				App:            "paneapp",
				Host:           session.Host{Mode: session.ModeTUI, HasUI: true, Role: session.RoleRoot},
				Env:            env,
				Settings:       settings.Options{Home: home, GlobalPath: global},
				StaticSettings: true,
				Drivers:        map[string]adapter.Driver{"herdr": herdr.Driver{StateDir: b.TempDir()}},
			})
			if err != nil {
				b.Fatal(err)
			}
			store := session.NewStore()
			ctx := context.Background()
			if err := reg.Attach(ctx, store); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = reg.Detach(context.Background()) })
			wait := func(state string) {
				if _, err := h.Wait(ctx, "w1:p1", func(a herdrtest.AgentInfo) bool { return string(a.AgentStatus) == state }); err != nil {
					b.Fatal(err)
				}
			}
			store.AgentSettled()
			wait("idle")
			var took []time.Duration
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				if i%2 == 0 {
					store.AgentStart()
					wait("working")
				} else {
					store.AgentSettled()
					wait("idle")
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "median-µs")
		})
	}
}
