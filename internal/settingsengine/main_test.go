package settingsengine

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}

var testSections = []Section{
	{Name: "herdr", Keys: []string{"source", "agent", "timeout"}},
	{Name: "noop"},
}

// fixture is a home and a project directory with fast timings.
type fixture struct {
	dir, home, proj string
	global, project string
	opts            Options
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	dir := tb.TempDir()
	f := &fixture{dir: dir, home: filepath.Join(dir, "home"), proj: filepath.Join(dir, "proj")}
	for _, d := range []string{f.home, f.proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	f.global = filepath.Join(f.home, ".app", "agent", "settings.json")
	f.project = filepath.Join(f.proj, ".app", "settings.json")
	f.opts = Options{
		App:          "app",
		Home:         f.home,
		ProjectRoot:  f.proj,
		Trust:        func(string) (bool, error) { return true, nil },
		Sections:     testSections,
		Debounce:     20 * time.Millisecond,
		Grace:        100 * time.Millisecond,
		RetryAfter:   200 * time.Millisecond,
		PollInterval: 50 * time.Millisecond,
	}
	return f
}

func write(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// doc is a settings file that sets herdr.enabled and herdr.agent.
func doc(enabled bool, agent string) string {
	return fmt.Sprintf(`{"other":{"x":1},"herdr":{"enabled":%t,"agent":%q}}`, enabled, agent)
}

// recorder collects onChange calls.
type recorder struct {
	mu      sync.Mutex
	got     []Settings
	changed chan struct{} // size 1: signalled after each call
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{}, 1)} }

func (r *recorder) on(s Settings) {
	r.mu.Lock()
	r.got = append(r.got, s)
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) all() []Settings {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Settings(nil), r.got...)
}

func startWatch(tb testing.TB, opts Options) (*Watcher, *recorder) {
	tb.Helper()
	return startWatchHooks(tb, opts, hooks{})
}

func startWatchHooks(tb testing.TB, opts Options, h hooks) (*Watcher, *recorder) {
	tb.Helper()
	r := newRecorder()
	w, err := watch(opts, r.on, h)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := w.Close(); err != nil {
			tb.Error(err)
		}
	})
	return w, r
}

// waitFor waits until ok holds for w.Current, rechecking after every reload
// the watcher publishes, for at most five seconds: file system events
// arrive from outside the test.
func waitFor(tb testing.TB, w *Watcher, what string, ok func(Settings) bool) {
	tb.Helper()
	deadline := time.After(5 * time.Second)
	for {
		s := w.Current()
		if ok(s) {
			return
		}
		select {
		case <-w.published:
		case <-deadline:
			on, from := s.Enabled("herdr", true)
			tb.Fatalf("timed out waiting for %s; herdr enabled=%v from %v, section %s, files %+v, warnings %v", what, on, from, s.Section("herdr"), s.Files(), s.Warnings())
		}
	}
}

// isHerdr reports whether s has herdr.enabled == enabled from layer and
// herdr.agent == agent.
func isHerdr(enabled bool, agent string, layer Layer) func(Settings) bool {
	want := fmt.Sprintf(`{"agent":%q}`, agent)
	return func(s Settings) bool {
		on, from := s.Enabled("herdr", !enabled)
		return on == enabled && from == layer && string(s.Section("herdr")) == want
	}
}

func waitHerdr(tb testing.TB, w *Watcher, enabled bool, agent string, layer Layer) {
	tb.Helper()
	waitFor(tb, w, fmt.Sprintf("herdr enabled=%v agent=%s from %v", enabled, agent, layer), isHerdr(enabled, agent, layer))
}

// logBuffer is a concurrency-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

func newLogger(buf *logBuffer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Output: buf, Level: hclog.Info})
}

func need(tb testing.TB, prog string) string {
	tb.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		tb.Skipf("%s is not installed; skipping the %s save style", prog, prog)
	}
	return p
}

func run(tb testing.TB, dir string, stdin string, name string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A saveStyle writes content to path the way some tool does. begin, if not
// nil, is called just before the step that completes the edit: the program
// that writes the final content (sed, vim, git checkout), the rename, or the
// final write. Preparation before it (staging a git blob, a slow writer's
// first half, the pause of a delete-then-recreate) is not timed by
// BenchmarkReloadLatency.
type saveStyle struct {
	name  string
	prog  string // program that must be installed, or ""
	saveB func(tb testing.TB, path, content string, begin func())
}

// save writes content to path in this style.
func (st saveStyle) save(tb testing.TB, path, content string) { st.saveB(tb, path, content, func() {}) }

var saveStyles = []saveStyle{
	{name: "in-place", saveB: func(tb testing.TB, path, content string, begin func()) {
		begin()
		write(tb, path, content)
	}},
	{name: "rapid-writes", saveB: func(tb testing.TB, path, content string, begin func()) {
		for i := range 10 {
			write(tb, path, doc(i%2 == 0, fmt.Sprint("burst", i)))
		}
		begin() // the burst is the writer's, not the watcher's, time
		write(tb, path, content)
	}},
	{name: "slow-writer", saveB: func(tb testing.TB, path, content string, begin func()) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			tb.Fatal(err)
		}
		half := len(content) / 2
		_, _ = f.WriteString(content[:half])
		time.Sleep(150 * time.Millisecond) // the slow writer pauses mid-write
		begin()
		_, _ = f.WriteString(content[half:])
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}},
	{name: "rename", saveB: func(tb testing.TB, path, content string, begin func()) {
		tmp := path + ".tmp123"
		begin()
		write(tb, tmp, content)
		if err := os.Rename(tmp, path); err != nil {
			tb.Fatal(err)
		}
	}},
	{name: "rename-from-other-dir", saveB: func(tb testing.TB, path, content string, begin func()) {
		tmp := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(path))), "elsewhere", "tmp.json")
		begin()
		write(tb, tmp, content)
		if err := os.Rename(tmp, path); err != nil {
			tb.Fatal(err)
		}
	}},
	{name: "sed-i", prog: "sed", saveB: func(tb testing.TB, path, content string, begin func()) {
		begin()
		run(tb, filepath.Dir(path), "", "sed", "-i", "s|.*|"+content+"|", path)
	}},
	{name: "vim", prog: "vim", saveB: func(tb testing.TB, path, content string, begin func()) {
		begin()
		run(tb, filepath.Dir(path), "", "vim", "-E", "-s", "-N", "-u", "NONE", "-i", "NONE",
			"-c", "set nocompatible backupskip=", "-c", "%d", "-c", "call setline(1, '"+content+"')", "-c", "wq", path)
	}},
	{name: "jetbrains", saveB: func(tb testing.TB, path, content string, begin func()) {
		tmp, old := path+"___jb_tmp___", path+"___jb_old___"
		begin()
		write(tb, tmp, content)
		if err := os.Rename(path, old); err != nil {
			tb.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			tb.Fatal(err)
		}
		if err := os.Remove(old); err != nil {
			tb.Fatal(err)
		}
	}},
	{name: "git-checkout", prog: "git", saveB: func(tb testing.TB, path, content string, begin func()) {
		// Stage content without touching the working tree, then let git
		// check the file out of the index.
		repo := filepath.Dir(filepath.Dir(path))
		rel, _ := filepath.Rel(repo, path)
		if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
			run(tb, repo, "", "git", "init", "-q")
		}
		blob := run(tb, repo, content, "git", "hash-object", "-w", "--stdin")
		run(tb, repo, "", "git", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+filepath.ToSlash(rel))
		begin()
		run(tb, repo, "", "git", "checkout", "--", rel)
	}},
	{name: "delete-recreate", saveB: func(tb testing.TB, path, content string, begin func()) {
		if err := os.Remove(path); err != nil {
			tb.Fatal(err)
		}
		time.Sleep(40 * time.Millisecond) // long enough for a debounced reload to see the file missing
		begin()
		write(tb, path, content)
	}},
}
