package owner

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	testenv.ClearTmux()
	goleak.VerifyTestMain(m)
}
