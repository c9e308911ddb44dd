package tmux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/testenv"
	"github.com/panestate/panestate/session"
)

// Fake tmux: the test binary, linked under the name "tmux", acts as a tmux
// client when it is run under that name. Its behaviour comes from
// fakeModeEnv in its environment (the adapter's captured one).
const (
	fakeModeEnv = "PANESTATE_FAKE_TMUX" // hang | fail | record | hold
	fakeLogEnv  = "PANESTATE_FAKE_TMUX_LOG"
	// hold: the named pipe the fake reads to its end before it runs a
	// report, and the real tmux it then runs (a release runs at once).
	fakeHoldEnv = "PANESTATE_FAKE_TMUX_HOLD"
	fakeRealEnv = "PANESTATE_FAKE_TMUX_REAL"
)

func TestMain(m *testing.M) {
	if name := filepath.Base(os.Args[0]); name == Program || name == "herdr" {
		// "herdr": a hung Herdr CLI, for the chat test. syscall.Exit, not
		// os.Exit: a binary built with -race sleeps a second in os.Exit(0)
		// (GORACE atexit_sleep_ms), which made every fake call take one.
		syscall.Exit(fakeTmux())
	}
	if os.Getenv(childEnvFlag) != "" {
		os.Exit(childMain())
	}
	testenv.ClearHerdr()
	testenv.ClearTmux()
	if _, err := exec.LookPath(Program); err != nil && os.Getenv("CI") != "true" {
		fmt.Fprintln(os.Stderr, "adapters/tmux: tmux is not installed: the tests against a real tmux server skip (install tmux to run them)")
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		testenv.RemoveChat() // what the chat tests built
		os.Exit(code)
	}))
}

// fakeTmux is the fake client. hang ignores SIGTERM, creates the log file
// when one is named (so a test knows the call is in flight) and never
// answers; fail answers as a client whose server is gone; record appends
// its argv as a JSON line to the log file and succeeds; hold is a slow
// client in front of the real tmux (holdThenRun).
func fakeTmux() int {
	switch os.Getenv(fakeModeEnv) {
	case "hang":
		signal.Ignore(syscall.SIGTERM)
		if log := os.Getenv(fakeLogEnv); log != "" {
			if err := os.WriteFile(log, nil, 0o600); err != nil {
				return 3
			}
		}
		// A hung client, which the adapter's deadline kills. One left
		// behind (a release whose server did not answer:
		// cmdrun.Runner.Leave) is nobody's to kill: it ends at once, so
		// that no test leaves it running.
		if leftBehind() {
			return 0
		}
		time.Sleep(time.Hour)
		return 0
	case "fail":
		fmt.Fprintf(os.Stderr, "no server running on /tmp/tmux-0/secret-socket\n")
		return 1
	case "hold":
		return holdThenRun()
	case "record":
		b, _ := json.Marshal(os.Args[1:])
		f, err := os.OpenFile(os.Getenv(fakeLogEnv), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return 3
		}
		defer f.Close()
		f.Write(append(b, '\n'))
		return 0
	}
	fmt.Fprintln(os.Stderr, "fake tmux: no mode")
	return 2
}

// fakeDir returns a directory holding a "tmux" that is the test binary.
func fakeDir(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(dir, Program)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// interactive is a host that may claim a pane.
var interactive = session.Host{Interactive: true, Root: true}

var (
	working = adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}
	blocked = adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval}
	idle    = adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent}
)

// diags records diagnostics.
type diags struct {
	mu   sync.Mutex
	list []adapter.Diagnostic
}

func (d *diags) add(x adapter.Diagnostic) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = append(d.list, x)
}

func (d *diags) all() []adapter.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.list)
}

// params returns Params for env, with diagnostics going to d.
func params(env adapter.Env, settings string, d *diags) adapter.Params {
	p := adapter.Params{
		Name:   "tmux",
		App:    "chat",
		Logger: hclog.NewNullLogger(),
		Env:    env,
		Host:   interactive,
	}
	if d != nil {
		p.Diagnose = d.add
	}
	if settings != "" {
		p.Settings = json.RawMessage(settings)
	}
	return p
}

// openT opens an adapter and closes it when the test ends.
func openT(t testing.TB, p adapter.Params) *Adapter {
	t.Helper()
	a, err := Driver{}.open(t.Context(), p)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	return a
}

// server is a private tmux server for one test, on a socket of its own.
type server struct {
	bin   string // the real tmux
	sock  string
	pid   string
	env   []string // the environment the server (and its panes) started with
	state string   // XDG_STATE_HOME of the adapters in its panes
}

// requireTmux returns the real tmux, or skips the test without one (fails
// it under CI=true, where .ci/run installs tmux): testenv.Tmux, which takes
// $PANESTATE_TMUX (.ci/run's second run, with the tmux 3.7c it builds).
func requireTmux(t testing.TB) string {
	t.Helper()
	return testenv.Tmux(t)
}

// startServer starts a tmux server on a private socket with one session,
// whose first pane runs argv (default: cat, which waits on the terminal),
// and kills it by its socket when the test ends. env, when given, is the
// server's whole environment (its panes inherit it).
func startServer(t testing.TB, env []string, argv ...string) *server {
	t.Helper()
	bin := requireTmux(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	if len(sock) > 100 { // sun_path holds 108 bytes
		d, err := os.MkdirTemp("", "pst")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		sock = filepath.Join(d, "s")
	}
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g history-limit 100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if env == nil {
		env = os.Environ()
	}
	if len(argv) == 0 {
		argv = []string{"cat"}
	}
	s := &server{bin: bin, sock: sock, env: env, state: filepath.Join(dir, "state")}
	args := append([]string{"-f", conf, "new-session", "-d", "-s", "test", "-x", "120", "-y", "30"}, argv...)
	s.run(t, args...)
	t.Cleanup(func() {
		// By socket, never by name: the user's own server is never touched.
		cmd := exec.Command(bin, "-S", sock, "kill-server")
		cmd.Env = env
		_ = cmd.Run()
	})
	s.pid = strings.TrimSpace(s.run(t, "display-message", "-p", "#{pid}"))
	return s
}

// run runs a tmux command against the server and returns its stdout.
func (s *server) run(t testing.TB, args ...string) string {
	t.Helper()
	out, err := s.try(args...)
	if err != nil {
		t.Fatalf("tmux %q: %v", args, err)
	}
	return out
}

func (s *server) try(args ...string) (string, error) {
	cmd := exec.Command(s.bin, append([]string{"-S", s.sock}, args...)...)
	cmd.Env = s.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// panes returns the server's pane ids, in order.
func (s *server) panes(t testing.TB) []string {
	t.Helper()
	return strings.Fields(s.run(t, "list-panes", "-a", "-F", "#{pane_id}"))
}

// splitPane adds a pane running cat and returns its id.
func (s *server) splitPane(t testing.TB) string {
	t.Helper()
	return strings.TrimSpace(s.run(t, "split-window", "-d", "-P", "-F", "#{pane_id}", "cat"))
}

// paneEnv is what the adapter would capture in pane: TMUX and TMUX_PANE as
// tmux sets them, a PATH that finds the real tmux, and a state directory of
// the test's own for the pane files.
func (s *server) paneEnv(pane string, extra ...string) adapter.Env {
	env := adapter.Env{
		EnvTmux + "=" + s.sock + "," + s.pid + ",0",
		EnvPane + "=" + pane,
		"PATH=" + filepath.Dir(s.bin),
		"XDG_STATE_HOME=" + s.state,
	}
	return append(env, extra...)
}

// options returns pane's user options whose names start with "@", but
// for the JSON one (@<prefix>, whose value changes with the time), as set
// at the pane level, read in one show-options -p call (so that a change in
// between cannot mix two states), with tmux's quoting undone.
func (s *server) options(t testing.TB, pane string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for line := range strings.Lines(s.run(t, "show-options", "-p", "-t", pane)) {
		name, value, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		if strings.HasPrefix(name, "@") && !strings.HasPrefix(unquote(value), "{") { // the JSON option: jsonoption_test.go
			m[name] = unquote(value)
		}
	}
	return m
}

// unquote undoes show-options' quoting of a value: double quotes, a pair
// of single quotes for the empty value, and backslash escapes.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// want is the option set a report of state/message with app "chat" leaves.
func want(state, message string) map[string]string {
	return map[string]string{"@panestate_state": state, "@panestate_message": message, "@panestate_agent": "chat"}
}

// errorsAs is errors.As with the target made here.
func errorsAs[T error](err error) (T, bool) {
	var target T
	ok := errors.As(err, &target)
	return target, ok
}

// eventually polls cond until it holds or 10 s pass; it is for events in
// other processes (a server dying), never for the package's own state.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	eventuallyWithin(t, 10*time.Second, what, cond)
}

// eventuallyWithin is eventually with a bound of its own.
func eventuallyWithin(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
