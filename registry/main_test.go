package registry

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	// Re-executed under the name "herdr", this binary is the emulated Herdr.
	herdrtest.Main()
	if mode := os.Getenv(signalHostEnv); mode != "" {
		os.Exit(runSignalHost(mode))
	}
	// Never touch a live Herdr pane from tests, whatever the developer's
	// environment.
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}
