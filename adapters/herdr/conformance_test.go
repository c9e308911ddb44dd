package herdr

import (
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

func TestConformance(t *testing.T) {
	// One emulated Herdr for every case: its server's goroutines then
	// predate each case's goroutine-leak check.
	h := startHerdr(t, herdrtest.Options{})
	adaptertest.Run(t, func(t *testing.T) adapter.Adapter {
		f := &fixture{h: h, drv: Driver{StateDir: t.TempDir()}, diags: &diags{}, env: adapter.Env(h.Env()), host: interactive}
		return f.open(t)
	})
}
