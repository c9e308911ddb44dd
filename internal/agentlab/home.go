package agentlab

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Home is a fake HOME for one agent run: its settings, state and
// transcripts stay in a directory of the test's, never a developer's real
// home. The agent works in [Home.Work], a directory under it.
type Home struct {
	// Dir is HOME.
	Dir string
	// Work is the agent's working directory, Dir/work.
	Work string
	// Runtime is XDG_RUNTIME_DIR, where the bridges keep their sockets:
	// a short path of its own, since a Unix socket's path is bounded.
	Runtime string
	// Bin is the directory on the front of PATH that holds panestate.
	Bin string

	env []string
}

// NewHome makes a fake home with an empty work directory, and an
// environment (Env) that has HOME, the XDG directories under it,
// XDG_RUNTIME_DIR at Runtime, and a PATH of panestate's directory, node's
// and the system's, TERM=xterm-256color and LANG=C.UTF-8; no HERDR_* or
// TMUX* variable, and nothing of the test's own environment. Both
// directories are removed when the test ends.
func NewHome(t testing.TB) *Home {
	t.Helper()
	dir, err := os.MkdirTemp("", "agentlab-home-")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := os.MkdirTemp("", "al")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir); os.RemoveAll(rt) })
	if err := os.Chmod(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	dir, _ = filepath.EvalSymlinks(dir)
	h := &Home{Dir: dir, Work: filepath.Join(dir, "work"), Runtime: rt, Bin: filepath.Dir(Panestate(t))}
	if err := os.MkdirAll(h.Work, 0o755); err != nil {
		t.Fatal(err)
	}
	path := []string{h.Bin}
	if node, err := exec.LookPath("node"); err == nil {
		path = append(path, filepath.Dir(node))
	}
	path = append(path, "/usr/local/bin", "/usr/bin", "/bin")
	h.env = []string{
		"HOME=" + dir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(dir, ".local", "share"),
		"XDG_RUNTIME_DIR=" + rt,
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
	}
	return h
}

// Env returns the environment of a program run in the home.
func (h *Home) Env() []string { return append([]string(nil), h.env...) }

// Setenv adds (or replaces) variables, each "KEY=value", in Env.
func (h *Home) Setenv(kv ...string) {
	for _, v := range kv {
		k, _, _ := strings.Cut(v, "=")
		h.env = append(slicesDeleteKey(h.env, k), v)
	}
}

// slicesDeleteKey returns env without the variable key.
func slicesDeleteKey(env []string, key string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != key {
			out = append(out, kv)
		}
	}
	return out
}

// WriteFile writes data to the file at rel under Dir, making its
// directories.
func (h *Home) WriteFile(t testing.TB, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(h.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Install runs `panestate install <agent>` in the home, as a user would,
// and fails the test when it fails.
func (h *Home) Install(t testing.TB, agent string) {
	t.Helper()
	cmd := exec.Command(Panestate(t), "install", agent)
	cmd.Env, cmd.Dir = h.Env(), h.Work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("agentlab: panestate install %s: %v\n%s", agent, err, out)
	}
}
