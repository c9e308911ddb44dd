package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/session"
)

// BenchmarkDetach measures Detach(context.Background()) against the emulated
// Herdr with a report in flight, over each transport (the CLI, and the
// server's socket that the adapter prefers when Herdr names one): "hung" is
// a Herdr that hangs and ignores SIGTERM (target: Detach returns within
// 2 s), "slow" answers every call after 500 ms (the report in flight is
// answered, and the release still arrives, within the 1.5 s budget),
// "healthy" answers at once. Each runs with static settings; the healthy
// ones also with live settings (a watcher on the settings files), whose
// Detach must not wait for the watcher to close: live within 2 ms of static.
// Only Detach is timed; released-ratio is the share of iterations after
// which the emulator showed the pane released. It fails when a Detach takes
// more than 2 s, or when a slow or healthy Herdr did not get the release.
func BenchmarkDetach(b *testing.B) {
	const detachTarget = 2 * time.Second
	type bench struct {
		name     string
		fault    herdrtest.Fault
		released bool // every Detach must release the pane
		live     bool
	}
	var benches []bench
	for _, tc := range []bench{
		{"hung", herdrtest.Fault{Hang: true, HangIgnoreTERM: true}, false, false},
		{"slow", herdrtest.Fault{SleepMs: 500}, true, false},
		{"healthy", herdrtest.Fault{}, true, false},
	} {
		for _, transport := range []string{"cli", "socket"} {
			for _, live := range []bool{false, true} {
				if live && tc.name != "healthy" {
					continue
				}
				settingsKind := "static"
				if live {
					settingsKind = "live"
				}
				benches = append(benches, bench{tc.name + "/" + transport + "/" + settingsKind, tc.fault, tc.released, live})
			}
		}
	}
	for _, tc := range benches {
		transport := strings.Split(tc.name, "/")[1]
		b.Run(tc.name, func(b *testing.B) {
			h := herdrtest.StartT(b, herdrtest.Options{})
			released, slowest := 0, time.Duration(0)
			for b.Loop() {
				b.StopTimer()
				if err := h.SetFault(herdrtest.Fault{}); err != nil {
					b.Fatal(err)
				}
				hook := newHookDriver(herdr.Driver{})
				home := b.TempDir()
				writeGlobal(b, home, `{"herdr": {"transport": "`+transport+`"}}`)
				opts := herdrOptions(h, home, hook)
				opts.StaticSettings = !tc.live
				reg, err := New(opts)
				if err != nil {
					b.Fatal(err)
				}
				store := session.NewStore()
				if err := reg.Attach(context.Background(), store); err != nil {
					b.Fatal(err)
				}
				hook.next(b, "report", func(_ adapter.Report, err error) bool { return err == nil })
				if err := h.SetFault(tc.fault); err != nil {
					b.Fatal(err)
				}
				store.AgentStart()
				hook.next(b, "enter", nil) // the report is in flight
				b.StartTimer()
				start := time.Now()
				_ = reg.Detach(context.Background())
				took := time.Since(start)
				b.StopTimer()
				slowest = max(slowest, took)
				if info, err := h.Agent(h.Pane); err == nil && !info.Found {
					released++
				} else {
					// Herdr is back: the next Detach releases the pane, so
					// that no iteration leaves an open adapter behind.
					if err := h.SetFault(herdrtest.Fault{}); err != nil {
						b.Fatal(err)
					}
					if err := reg.Detach(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				reg.bg.Wait() // the watcher, closed after Detach returned
				b.StartTimer()
			}
			b.ReportMetric(float64(released)/float64(b.N), "released-ratio")
			b.ReportMetric(float64(slowest.Microseconds())/1000, "max-ms")
			// The targets (issue 9): Detach returns within 2 s even with a
			// hung Herdr, and a slow or healthy one always gets the release.
			if slowest > detachTarget {
				b.Errorf("the slowest Detach took %v, want at most %v", slowest, detachTarget)
			}
			if tc.released && released != b.N {
				b.Errorf("released %d of %d panes, want every one", released, b.N)
			}
		})
	}
}

// writeGlobal writes body as the global settings file under home.
func writeGlobal(tb testing.TB, home, body string) {
	tb.Helper()
	path := filepath.Join(home, ".paneapp", "agent", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}
