package herdr

import (
	"path/filepath"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// TestConformance runs the adapter conformance suite on each transport.
func TestConformance(t *testing.T) {
	// One emulated Herdr for every case: its server's goroutines then
	// predate each case's goroutine-leak check.
	h := startHerdr(t, herdrtest.Options{})
	forTransports(t, func(t *testing.T, transport string) {
		adaptertest.Run(t, func(t *testing.T) adapter.Adapter {
			f := &fixture{h: h, drv: Driver{StateDir: filepath.Join(t.TempDir(), "state")}, diags: &diags{}, env: adapter.Env(h.Env()), host: interactive, transport: transport}
			return f.open(t)
		})
	})
}
