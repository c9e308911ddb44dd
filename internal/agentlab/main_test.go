package agentlab

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	herdrtest.Main() // the test binary is also the emulated herdr CLI
	testenv.ClearHerdr()
	code := m.Run()
	Cleanup()
	if code == 0 {
		goleak.VerifyTestMain(exitOnly{})
	}
	os.Exit(code)
}

// exitOnly lets goleak check after the tests ran, with the build removed.
type exitOnly struct{}

func (exitOnly) Run() int { return 0 }
