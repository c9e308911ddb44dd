package settings

import (
	"fmt"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkReloadLatency measures, per save style, the time from the end of
// the save that completes an edit (flipping herdr.enabled) to onChange
// delivering the flipped value, with the default debounce and grace. Run it
// with -benchtime=1x: each iteration makes 20 edits.
func BenchmarkReloadLatency(b *testing.B) {
	styles := []string{"in-place", "rename", "sed-i", "vim", "jetbrains", "git-checkout", "delete-recreate"}
	for _, st := range saveStyles {
		if !slices.Contains(styles, st.name) {
			continue
		}
		b.Run(st.name, func(b *testing.B) {
			if st.prog != "" {
				if _, err := exec.LookPath(st.prog); err != nil {
					b.Skipf("%s is not installed", st.prog)
				}
			}
			f := newFixture(b)
			f.opts.Debounce, f.opts.Grace, f.opts.RetryAfter, f.opts.PollInterval = 0, 0, 0, 0
			type stamp struct {
				on bool
				at time.Time
			}
			ch := make(chan stamp, 64)
			write(b, f.project, doc(true, "v0"))
			w, err := Watch(f.opts, func(s Settings) {
				on, _ := s.Enabled("herdr", true)
				select {
				case ch <- stamp{on, time.Now()}:
				default:
				}
			})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			b.ReportAllocs()
			var lat []time.Duration
			on := true
			n := 0
			for b.Loop() {
				for range 20 {
					n++
					on = !on
					for len(ch) > 0 {
						<-ch
					}
					st.save(b, f.project, doc(on, fmt.Sprint("v", n)))
					t0 := time.Now()
					timeout := time.After(5 * time.Second)
				wait:
					for {
						select {
						case s := <-ch:
							if s.on == on {
								lat = append(lat, s.at.Sub(t0))
								break wait
							}
						case <-timeout:
							b.Fatalf("edit %d: no callback with enabled=%v", n, on)
						}
					}
				}
			}
			slices.Sort(lat)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
			b.ReportMetric(ms(lat[len(lat)*9/10]), "p90-ms")
		})
	}
}
