package registry

import (
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// Never touch a live Herdr pane from tests, whatever the developer's
	// environment.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "HERDR_") {
			os.Unsetenv(k)
		}
	}
	goleak.VerifyTestMain(m)
}
