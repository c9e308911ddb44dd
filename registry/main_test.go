package registry

import (
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

func TestMain(m *testing.M) {
	// Re-executed under the name "herdr", this binary is the emulated Herdr.
	herdrtest.Main()
	// Never touch a live Herdr pane from tests, whatever the developer's
	// environment.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "HERDR_") {
			os.Unsetenv(k)
		}
	}
	goleak.VerifyTestMain(m)
}
