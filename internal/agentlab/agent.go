package agentlab

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

// Agent is a real coding agent installed from npm at a pinned version.
type Agent struct {
	// Name is the agent's directory under [AgentsDir] and its name for
	// `panestate hook` and `panestate install`: "claude-code".
	Name string
	// Bin is the executable in node_modules/.bin: "claude".
	Bin string
	// Package is the npm package: "@anthropic-ai/claude-code".
	Package string
	// Version is the pinned version: "2.1.328".
	Version string
}

// ClaudeCode is Claude Code 2.1.328.
var ClaudeCode = Agent{Name: "claude-code", Bin: "claude", Package: "@anthropic-ai/claude-code", Version: "2.1.328"}

// EnvAgents names the directory that holds the agents, one directory per
// [Agent.Name] with the package installed in it (.ci/run sets it).
const EnvAgents = "PANESTATE_AGENTS"

// AgentsDir returns where the agents are: $PANESTATE_AGENTS, or else
// agents under ${PANESTATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/panestate}.
func AgentsDir() string {
	if d := os.Getenv(EnvAgents); d != "" {
		return d
	}
	cache := os.Getenv("PANESTATE_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "panestate")
	}
	return filepath.Join(cache, "agents")
}

// unavailable ends a test that cannot run its agent: it fails under
// CI=true, where .ci/run installs everything, and is skipped otherwise.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("agentlab: %s (CI must run the real-agent suite)", msg)
	}
	t.Skipf("agentlab: %s: skipping the real-agent test", msg)
}

// installs serialises npm installs: one per agent per test binary.
var installs sync.Map // Agent.Name -> *installOnce

type installOnce struct {
	once sync.Once
	err  error
}

// Binary returns the agent's executable,
// <AgentsDir>/<Name>/node_modules/.bin/<Bin>. When it is missing and npm
// is on PATH, it installs the pinned package there first (npm install
// --prefix), once per test binary. Without node or npm, or when the
// install fails, the test fails under CI=true and is skipped otherwise.
func Binary(t testing.TB, a Agent) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		unavailable(t, "node is not on PATH (%s needs it)", a.Package)
	}
	dir := filepath.Join(AgentsDir(), a.Name)
	bin := filepath.Join(dir, "node_modules", ".bin", a.Bin)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		unavailable(t, "%s is not installed at %s and npm is not on PATH to install it", a.Package, bin)
	}
	v, _ := installs.LoadOrStore(a.Name, &installOnce{})
	in := v.(*installOnce)
	in.once.Do(func() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			in.err = err
			return
		}
		out, err := exec.Command(npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, a.Package+"@"+a.Version).CombinedOutput()
		if err != nil {
			in.err = fmt.Errorf("%w\n%s", err, out)
			return
		}
		_ = os.WriteFile(filepath.Join(dir, ".installed-"+a.Version), nil, 0o644)
	})
	if in.err != nil {
		unavailable(t, "npm install %s@%s into %s: %v", a.Package, a.Version, dir, in.err)
	}
	if _, err := os.Stat(bin); err != nil {
		unavailable(t, "%s@%s installed into %s has no %s", a.Package, a.Version, dir, a.Bin)
	}
	return bin
}

// build is the panestate binary, built once per test binary: process-wide
// by design, since every test of the suite runs the same command.
var build testenv.Build

// Panestate returns the panestate command, built on first use (go build,
// CGO_ENABLED=0, as docs/agents.md installs it) into a temporary directory
// of its own, which holds nothing else: put that directory on the agent's
// PATH. [Cleanup] removes it.
func Panestate(t testing.TB) string {
	t.Helper()
	return build.Get(t, "github.com/panestate/panestate/cmd/panestate", "panestate", "CGO_ENABLED=0")
}

// Cleanup removes what [Panestate] built. The suite's TestMain calls it
// after m.Run.
func Cleanup() { build.Remove() }
