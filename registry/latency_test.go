package registry

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// BenchmarkSettingsToggle measures, for each way of saving, the time from the
// start of the save that edits herdr.enabled to the emulated Herdr having the
// release (pane released) or the claim (pane claimed), with the default
// debounce. 20 edits per style; median and p90 in ms.
func BenchmarkSettingsToggle(b *testing.B) {
	styles := []struct {
		name  string
		write func(path string, data []byte) error
	}{
		{"in-place", func(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }},
		{"rename", func(path string, data []byte) error {
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, path)
		}},
		{"delete-recreate", func(path string, data []byte) error {
			if err := os.Remove(path); err != nil {
				return err
			}
			return os.WriteFile(path, data, 0o644)
		}},
		{"jetbrains", func(path string, data []byte) error {
			tmp, old := path+"___jb_tmp___", path+"___jb_old___"
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				return err
			}
			if err := os.Rename(path, old); err != nil {
				return err
			}
			if err := os.Rename(tmp, path); err != nil {
				return err
			}
			return os.Remove(old)
		}},
		{"sed-i", func(path string, data []byte) error {
			return exec.Command("sed", "-i", "s|.*|"+string(data)+"|", path).Run()
		}},
		{"vim", func(path string, data []byte) error {
			return exec.Command("vim", "-E", "-s", "-N", "-u", "NONE", "-i", "NONE",
				"-c", "set nocompatible backupskip=", "-c", "%d", "-c", "call setline(1, '"+string(data)+"')",
				"-c", "wq", path).Run()
		}},
	}
	for _, st := range styles {
		b.Run(st.name, func(b *testing.B) {
			if prog, _, _ := strings.Cut(st.name, "-"); prog == "sed" || prog == "vim" {
				if _, err := exec.LookPath(prog); err != nil {
					b.Skipf("%s is not installed", prog)
				}
			}
			var lat []time.Duration
			for b.Loop() {
				lat = append(lat, toggleLatencies(b, st.write, 20)...)
			}
			slices.Sort(lat)
			b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
			b.ReportMetric(ms(lat[len(lat)*9/10]), "p90-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func toggleLatencies(b *testing.B, write func(string, []byte) error, edits int) []time.Duration {
	h, err := herdrtest.Start(herdrtest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	home := b.TempDir()
	path := filepath.Join(home, ".paneapp", "agent", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"herdr":{"enabled":true}}`), 0o644); err != nil {
		b.Fatal(err)
	}
	hook := newHookDriver(herdr.Driver{})
	opts := herdrOptions(h, home, hook)
	opts.StaticSettings = false
	opts.Settings = settings.Options{Home: home} // the default debounce
	reg, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Detach(context.Background())
	if err := reg.Attach(context.Background(), session.NewStore()); err != nil {
		b.Fatal(err)
	}
	hook.next(b, "report", nil) // the pane claimed at Attach
	var out []time.Duration
	enabled := true
	for range edits {
		enabled = !enabled
		body, call := `{"herdr":{"enabled":false}}`, "release"
		if enabled {
			body, call = `{"herdr":{"enabled":true}}`, "report"
		}
		// The clock starts before the save: a save program's own run
		// counts, as it does for the person who saved.
		start := time.Now()
		if err := write(path, []byte(body)); err != nil {
			b.Fatal(err)
		}
		// The call has returned: the emulator has the claim or the release.
		hook.next(b, call, func(_ adapter.Report, err error) bool { return err == nil })
		out = append(out, time.Since(start))
		info, err := h.Agent(h.Pane)
		if err != nil || info.Found != enabled {
			b.Fatalf("after the edit the pane is %+v (%v), want claimed=%t", info, err, enabled)
		}
	}
	return out
}
