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

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// BenchmarkSettingsToggle measures, for each way of saving, the time from the
// write that completes an edit of herdr.enabled to the registry having
// detached (pane released) or attached (pane claimed) the Herdr adapter, with
// the default 100 ms debounce. 20 edits per style; median and p90 in ms.
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
	path := filepath.Join(home, ".lat", "agent", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"herdr":{"enabled":true}}`), 0o644); err != nil {
		b.Fatal(err)
	}
	reg, err := New(Options{App: "lat", Host: tuiHost, Adapters: []string{"herdr"},
		Env:      append([]string{"HOME=" + home, "XDG_STATE_HOME=" + home}, h.Env()...),
		Settings: settings.Options{Home: home}})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Detach(context.Background())
	if err := reg.Attach(context.Background(), session.NewStore()); err != nil {
		b.Fatal(err)
	}
	var out []time.Duration
	enabled := true
	for range edits {
		enabled = !enabled
		body := `{"herdr":{"enabled":false}}`
		want := "disabled"
		if enabled {
			body, want = `{"herdr":{"enabled":true}}`, "active"
		}
		start := time.Now()
		if err := write(path, []byte(body)); err != nil {
			b.Fatal(err)
		}
		written := time.Now()
		for reg.Explain().Adapters[0].State != want {
			if time.Since(start) > 5*time.Second {
				b.Fatalf("registry did not become %s", want)
			}
			time.Sleep(200 * time.Microsecond)
		}
		out = append(out, time.Since(written))
	}
	return out
}
