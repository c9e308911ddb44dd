package hook

import (
	"os"
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	os.Exit(m.Run())
}
