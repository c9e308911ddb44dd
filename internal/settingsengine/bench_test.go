package settingsengine

import (
	"fmt"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkReloadLatency measures, per save style, the time from the start
// of the step that completes an edit (flipping herdr.enabled and changing
// herdr.agent) to onChange delivering the new value, with the default
// debounce, grace and retry. The clock starts before the save program runs
// (see saveStyle), so the figure includes the program's own run time and
// can never be negative. Run it with -benchtime=1x: each iteration makes 20
// edits; median-ms, p90-ms and min-ms are over the edits of the run, and
// wrong-values counts callbacks that showed anything but the edit's final
// value (an intermediate write, a file seen missing) before it.
func BenchmarkReloadLatency(b *testing.B) {
	for _, st := range saveStyles {
		b.Run(st.name, func(b *testing.B) {
			if st.prog != "" {
				if _, err := exec.LookPath(st.prog); err != nil {
					b.Skipf("%s is not installed", st.prog)
				}
			}
			f := newFixture(b)
			f.opts.Debounce, f.opts.Grace, f.opts.RetryAfter, f.opts.PollInterval = 0, 0, 0, 0
			type stamp struct {
				section string
				at      time.Time
			}
			ch := make(chan stamp, 64)
			write(b, f.project, doc(true, "v0"))
			w, err := Watch(f.opts, func(s Settings) {
				select {
				case ch <- stamp{string(s.Section("herdr")), time.Now()}:
				default:
				}
			})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			b.ReportAllocs()
			var lat []time.Duration
			wrong := 0 // callbacks with another value before the edit's own
			on := true
			n := 0
			for b.Loop() {
				for range 20 {
					n++
					on = !on
					agent := fmt.Sprint("v", n)
					want := fmt.Sprintf(`{"agent":%q}`, agent)
					for len(ch) > 0 {
						<-ch
					}
					var t0 time.Time
					st.saveB(b, f.project, doc(on, agent), func() { t0 = time.Now() })
					timeout := time.After(5 * time.Second)
				wait:
					for {
						select {
						case s := <-ch:
							if s.section == want {
								if got, _ := w.Current().Enabled("herdr", !on); got != on {
									b.Fatalf("edit %d: agent %s applied with enabled=%v", n, agent, got)
								}
								lat = append(lat, s.at.Sub(t0))
								break wait
							}
							wrong++
						case <-timeout:
							b.Fatalf("edit %d: no callback with agent %s", n, agent)
						}
					}
				}
			}
			slices.Sort(lat)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
			b.ReportMetric(ms(lat[len(lat)*9/10]), "p90-ms")
			b.ReportMetric(ms(lat[0]), "min-ms")
			b.ReportMetric(float64(wrong), "wrong-values")
		})
	}
}
