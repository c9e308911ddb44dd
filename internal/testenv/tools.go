package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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

// Build is a command of the module built once per test binary, into a
// temporary directory that holds nothing else. The zero value is ready.
type Build struct {
	once sync.Once
	dir  string // the build's temporary directory, removed by Remove
	bin  string
	err  error
}

// Get returns the command of package pkg (an import path), named name,
// built on first use with env added to the go tool's environment. A
// failed build fails t.
func (b *Build) Get(t testing.TB, pkg, name string, env ...string) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "panestate-"+name+"-")
		if err != nil {
			b.err = err
			return
		}
		bin := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			b.err = fmt.Errorf("%w\n%s", err, out)
			return
		}
		b.dir, b.bin = dir, bin
	})
	if b.err != nil {
		t.Fatalf("building %s: %v", pkg, b.err)
	}
	return b.bin
}

// Remove removes what Get built, if anything. Call it from TestMain after
// m.Run.
func (b *Build) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// chat is examples/chat as Chat builds it: once per test binary.
var chat Build

// Chat returns examples/chat, built on first use into a temporary
// directory and shared by every test of the test binary. A missing go
// tool fails the test under CI=true and skips it otherwise; a failed build
// fails it. The package's TestMain calls RemoveChat after m.Run.
func Chat(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the go tool is not on PATH; it builds examples/chat: %v", err)
		}
		t.Skip("the go tool is not on PATH; it builds examples/chat")
	}
	return chat.Get(t, "github.com/panestate/panestate/examples/chat", "chat")
}

// RemoveChat removes what Chat built, if anything. Call it from TestMain
// after m.Run.
func RemoveChat() { chat.Remove() }
