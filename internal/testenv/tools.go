package testenv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvTmux names the tmux binary that the tests driving a real tmux use
// instead of the one on PATH. .ci/run sets it to the tmux 3.7c it builds,
// for a second run of those tests.
const EnvTmux = "PANESTATE_TMUX"

// Tmux returns the tmux a test drives: $PANESTATE_TMUX when set, whose
// directory then goes first on the test's PATH (t.Setenv) so that a
// pane's programs find the same tmux as their server, else the one on
// PATH. A missing tmux fails the test under CI=true, where .ci/run
// installs it, and skips it otherwise.
func Tmux(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv(EnvTmux); bin != "" {
		t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		return bin
	}
	bin, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tmux is not installed (CI must have it: .ci/run installs it): %v", err)
		}
		t.Skip("tmux not installed: skipping the test against a real tmux server")
	}
	return bin
}

// BuildChat builds examples/chat into a new temporary directory and
// returns the binary and a function that removes the directory. Callers
// build it once per test binary (sync.OnceValues) and remove it after
// m.Run.
func BuildChat() (bin string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "panestate-chat-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	bin = filepath.Join(dir, "chat")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/panestate/panestate/examples/chat").CombinedOutput()
	if err != nil {
		remove()
		return "", nil, errors.New(string(out))
	}
	return bin, remove, nil
}
