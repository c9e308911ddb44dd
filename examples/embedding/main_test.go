package embedding_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
)

// TestMain runs the examples outside every workspace and away from the
// developer's own settings: no HERDR_* or TMUX variable, and a home of
// its own, so that ~/.mychat/agent/settings.json is a file of this run.
func TestMain(m *testing.M) {
	// The emulated Herdr of BenchmarkPublishToApplied may re-execute this
	// binary as its herdr CLI.
	herdrtest.Main()
	testenv.ClearHerdr() // and every TMUX* variable
	home, err := os.MkdirTemp("", "embedding-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HOME", home)
	os.Setenv("USERPROFILE", home)
	os.Setenv("XDG_STATE_HOME", home)
	code := 0
	func() {
		defer os.RemoveAll(home)
		// goleak.VerifyTestMain would exit before the removal.
		code = m.Run()
		if code == 0 {
			if err := goleak.Find(); err != nil {
				fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
				code = 1
			}
		}
	}()
	os.Exit(code)
}
