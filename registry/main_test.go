package registry

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	// Re-executed under the name "herdr", this binary is the emulated Herdr.
	herdrtest.Main()
	// Never touch a live Herdr pane from tests, whatever the developer's
	// environment.
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}
