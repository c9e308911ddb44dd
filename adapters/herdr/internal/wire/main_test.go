package wire

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}
