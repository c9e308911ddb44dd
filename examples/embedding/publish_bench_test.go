package embedding_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// fakeHerdr is herdrtest's standalone fake herdr CLI (cmd/fakeherdr),
// built once per benchmark process: a small program, as Herdr's CLI is,
// rather than this package's test binary re-executed.
var fakeHerdr = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "fakeherdr-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "herdr")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/panestate/panestate/adapters/herdr/herdrtest/cmd/fakeherdr").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build fakeherdr: %v\n%s", err, out)
	}
	return bin, nil
})

// BenchmarkPublishToApplied times what a person waits for: from a host's
// session.Store publish (an agent turn starting or settling) to the report
// applied at herdrtest's emulated Herdr server, through a registry attached
// as a chat service attaches it, with the herdr.transport setting "cli"
// (the adapter starts the standalone fake CLI, which pings and sends the
// request) or "socket" (one request line on a fresh connection). Each
// iteration waits for the pane to change (Herdr.Wait), then for the
// server's log to show the report (Herdr.WaitCalls; no polling), and takes
// the server's own Call.Handled time. ns/op includes those waits and the
// log reading; the metric
// ms-median is the median over the run's iterations, ms-p90 the 90th
// percentile.
func BenchmarkPublishToApplied(b *testing.B) {
	for _, transport := range []string{"cli", "socket"} {
		b.Run(transport, func(b *testing.B) {
			h := herdrtest.StartT(b, herdrtest.Options{})
			if transport == "cli" {
				bin, err := fakeHerdr()
				if err != nil {
					b.Fatal(err)
				}
				data, err := os.ReadFile(bin)
				if err != nil {
					b.Fatal(err)
				}
				if err := os.Remove(h.Bin); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(h.Bin, data, 0o755); err != nil {
					b.Fatal(err)
				}
			}
			home := b.TempDir()
			global := filepath.Join(home, ".bench", "agent", "settings.json")
			if err := os.MkdirAll(filepath.Dir(global), 0o700); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(global, fmt.Appendf(nil, `{"herdr": {"transport": %q}}`, transport), 0o600); err != nil {
				b.Fatal(err)
			}
			reg, err := registry.New(registry.Options{
				App:            "bench",
				Host:           session.Host{Interactive: true, Root: true},
				Env:            h.PaneEnv(home),
				Settings:       settings.Options{Home: home},
				StaticSettings: true,
				Drivers:        map[string]adapter.Driver{"herdr": herdr.Driver{}},
			})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			store := session.NewStore()
			if err := reg.Attach(ctx, store); err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := reg.Detach(ctx); err != nil {
					b.Error(err)
				}
			}()
			// The claim: the first report (idle) applied, over the
			// transport asked for.
			last, err := waitApplied(ctx, b, h, 0, "idle", herdrtest.Transport(transport))
			if err != nil {
				b.Fatal(err)
			}

			rev, err := revision(h)
			if err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				want := "working"
				publish := store.AgentStart
				if i%2 == 1 {
					want, publish = "idle", store.AgentSettled
				}
				start := time.Now()
				publish()
				// Wait for the pane to change (the server's state, in
				// memory) before reading the log, so that reading it does
				// not compete with the delivery for the two CPUs.
				wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				_, err := h.Wait(wctx, h.Pane, func(a herdrtest.AgentInfo) bool { return a.StateChangeSeq > rev })
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				c, err := waitApplied(ctx, b, h, last.Arrival, want, herdrtest.Transport(transport))
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, c.Handled.Sub(start))
				last = c
				if rev, err = revision(h); err != nil {
					b.Fatal(err)
				}
			}
			slices.Sort(lat)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(lat[len(lat)/2]), "ms-median")
			b.ReportMetric(ms(lat[len(lat)*9/10]), "ms-p90")
		})
	}
}

// revision returns the own pane's state_change_seq, which the server
// raises on every state change of the pane.
func revision(h *herdrtest.Herdr) (uint64, error) {
	a, err := h.Agent(h.Pane)
	return a.StateChangeSeq, err
}

// waitApplied waits, without polling, for the first report-agent the
// server received after arrival after that it applied, with state want, and
// checks that it came over transport.
func waitApplied(ctx context.Context, b *testing.B, h *herdrtest.Herdr, after int, want string, transport herdrtest.Transport) (herdrtest.Call, error) {
	b.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var found herdrtest.Call
	_, err := h.WaitCalls(ctx, func(calls []herdrtest.Call) bool {
		for _, c := range calls {
			if state, _ := c.Flag("state"); c.Arrival > after && c.Applied && c.Command == "pane report-agent" && state == want {
				found = c
				return true
			}
		}
		return false
	})
	if err != nil {
		return found, fmt.Errorf("waiting for %s to be applied: %w", want, err)
	}
	if found.Transport != transport {
		return found, fmt.Errorf("%s went over %s, want %s", want, found.Transport, transport)
	}
	return found, nil
}
