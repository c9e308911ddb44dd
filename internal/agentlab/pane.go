package agentlab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
)

// Workspace is where a [Pane] shows the agent's state.
type Workspace string

// The workspaces.
const (
	// Herdr is the emulated Herdr of package herdrtest (0.9.3 by default:
	// it carries the resume command), the agent's terminal a tmux pane
	// whose TMUX variables the agent does not see.
	Herdr Workspace = "herdr"
	// Tmux is a private tmux server (its socket in a directory of the
	// test's), the agent in its pane with TMUX and TMUX_PANE set.
	Tmux Workspace = "tmux"
)

// Workspaces lists both, for a test that runs a case in each.
var Workspaces = []Workspace{Herdr, Tmux}

// WaitTimeout bounds every wait of a Pane: far above what a run needs, so
// that only a hang fails.
const WaitTimeout = 30 * time.Second

// Step is one change of what the pane showed.
type Step struct {
	// At is when the workspace took the change: for Herdr when its server
	// handled the report, for tmux when a poll of the pane's options
	// (every 20 ms) first saw it.
	At time.Time
	// State is what the pane showed: "idle", "working", "blocked", ""
	// (no agent: before the first report and after the release), or for
	// Herdr "done" and "unknown" as Herdr shows them.
	State string
	// Message is the pane's message (tmux: @panestate_message), or "".
	Message string
}

// String renders the step as "state" or "state (message)", "released"
// for no agent.
func (s Step) String() string {
	st := s.State
	if st == "" {
		st = "released"
	}
	if s.Message != "" {
		st += " (" + s.Message + ")"
	}
	return st
}

// Pane is one terminal pane of a private tmux server that runs the agent,
// showing its state in the workspace. Every tmux call names the server's
// socket; the server is killed by it when the test ends.
type Pane struct {
	// Workspace is where the state is shown.
	Workspace Workspace
	// Herdr is the emulated Herdr, for Workspace Herdr; nil for tmux.
	Herdr *herdrtest.Herdr
	// Started is when the pane was made: the timeline's origin.
	Started time.Time

	home      *Home
	tmux      string
	sock      string
	id        string // the tmux pane id, %N
	serverPID string

	mu      sync.Mutex
	steps   []Step        // tmux: what the poll saw
	changed chan struct{} // closed and replaced on each new step
	stop    chan struct{}
	done    chan struct{}
}

// PaneOptions configure [StartPane].
type PaneOptions struct {
	// HerdrVersion is the Herdr version to emulate
	// (herdrtest.Version093 by default).
	HerdrVersion string
}

// StartPane makes a pane of ws for programs run with home's environment.
// Without tmux the test fails under CI=true and is skipped otherwise.
func StartPane(t testing.TB, ws Workspace, home *Home, opts PaneOptions) *Pane {
	t.Helper()
	bin := testenv.Tmux(t)
	dir, err := os.MkdirTemp("", "altm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	conf := filepath.Join(dir, "tmux.conf")
	// The pane stays after its program exits, so that the last screen can
	// be read and the bridge's release still finds the pane.
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g history-limit 5000\nset -g status off\nset -s escape-time 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &Pane{Workspace: ws, home: home, tmux: bin, sock: filepath.Join(dir, "s"), changed: make(chan struct{}), Started: time.Now()}
	cmd := p.tmuxCmd("-f", conf, "new-session", "-d", "-s", "lab", "-x", "160", "-y", "50", "cat")
	cmd.Env = home.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("agentlab: tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = p.tmuxCmd("kill-server").Run() })
	p.serverPID = strings.TrimSpace(p.run(t, "display-message", "-p", "#{pid}"))
	p.id = strings.TrimSpace(p.run(t, "display-message", "-p", "#{pane_id}"))
	switch ws {
	case Herdr:
		v := opts.HerdrVersion
		if v == "" {
			v = herdrtest.Version093
		}
		h, err := herdrtest.Start(herdrtest.Options{Version: v, InView: []string{"w1:p1"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		p.Herdr = h
	case Tmux:
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.poll()
		t.Cleanup(func() { close(p.stop); <-p.done })
	default:
		t.Fatalf("agentlab: unknown workspace %q", ws)
	}
	return p
}

// tmuxCmd is a tmux client of the pane's server running args. Every one
// runs with -u: without a UTF-8 locale (LANG unset, as under env -i) tmux
// prints each tab and non-ASCII character of its output as "_", and the
// poll's "state<TAB>message" would read as "idle_".
func (p *Pane) tmuxCmd(args ...string) *exec.Cmd {
	return exec.Command(p.tmux, append([]string{"-u", "-S", p.sock}, args...)...)
}

// run runs tmux on the pane's server and returns its output.
func (p *Pane) run(t testing.TB, args ...string) string {
	t.Helper()
	out, err := p.tmuxCmd(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("agentlab: tmux %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// Env is the environment of a program in the pane: the home's, and the
// workspace's pane variables (Herdr's HERDR_*, or tmux's TMUX and
// TMUX_PANE).
func (p *Pane) Env() []string {
	env := p.home.Env()
	if p.Herdr != nil {
		return append(env, p.Herdr.Env()...)
	}
	return append(env, "TMUX="+p.sock+","+p.serverPID+",0", "TMUX_PANE="+p.id)
}

// Run starts argv in the pane, in the home's work directory, with exactly
// [Pane.Env] plus extra ("KEY=value"), replacing what ran there before.
func (p *Pane) Run(t testing.TB, extra []string, argv ...string) {
	t.Helper()
	args := []string{"respawn-pane", "-k", "-t", p.id, "-c", p.home.Work, "--", "env", "-i"}
	args = append(append(append(args, p.Env()...), extra...), argv...)
	p.run(t, args...)
}

// PID returns the process id of the program in the pane.
func (p *Pane) PID(t testing.TB) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(p.run(t, "display-message", "-p", "-t", p.id, "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// Keys sends tmux key names (send-keys: "Enter", "Escape", "C-c") to the
// pane and returns when tmux has taken them. The time it returns is the
// moment just before it sent them: the agent may act on a key, and the
// workspace show it, before send-keys returns (a loaded machine), so a
// state caused by the keys is never earlier than that time.
func (p *Pane) Keys(t testing.TB, keys ...string) time.Time {
	t.Helper()
	at := time.Now()
	p.run(t, append([]string{"send-keys", "-t", p.id}, keys...)...)
	return at
}

// Type sends text to the pane literally (send-keys -l).
func (p *Pane) Type(t testing.TB, text string) {
	t.Helper()
	p.run(t, "send-keys", "-t", p.id, "-l", text)
}

// Screen returns what the pane shows (capture-pane -p, joined lines).
func (p *Pane) Screen(t testing.TB) string {
	t.Helper()
	return p.run(t, "capture-pane", "-p", "-J", "-t", p.id)
}

// screenOrErr is the screen, or why tmux could not give it, for a failure
// message that must not end in another failure.
func (p *Pane) screenOrErr() string {
	out, err := p.tmuxCmd("capture-pane", "-p", "-J", "-t", p.id).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(tmux capture-pane: %v: %s)", err, out)
	}
	return string(out)
}

// WaitScreen waits until the screen contains text, polling every 50 ms
// (tmux tells no one when a pane changes), and returns the screen. It
// fails the test after WaitTimeout, showing the screen.
func (p *Pane) WaitScreen(t testing.TB, text string) string {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	for {
		s := p.Screen(t)
		if strings.Contains(s, text) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("agentlab: %q did not appear in the pane within %v; it shows:\n%s", text, WaitTimeout, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitExit waits until the pane's program has exited and returns its
// exit status (128+n for a signal n).
func (p *Pane) WaitExit(t testing.TB) int {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	var unknown time.Time // when the pane was first seen dead without a status
	for {
		out := strings.Split(strings.TrimSpace(p.run(t, "display-message", "-p", "-t", p.id, "#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}")), ":")
		if len(out) == 3 && out[0] == "1" {
			if sig, _ := strconv.Atoi(out[2]); sig > 0 {
				return 128 + sig
			}
			if out[1] != "" {
				code, _ := strconv.Atoi(out[1])
				return code
			}
			// tmux 3.3 can mark the pane dead (its pty closed) before it
			// has the program's status, and under load sometimes never
			// gets it: wait a second for it, then take it as 0.
			if unknown.IsZero() {
				unknown = time.Now()
			} else if time.Since(unknown) > time.Second {
				return 0
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("agentlab: the pane's program still runs after %v (dead:status:signal %q); it shows:\n%s", WaitTimeout, out, p.Screen(t))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill sends sig to the pane's program and returns the moment just
// before it did (see Keys).
func (p *Pane) Kill(t testing.TB, sig os.Signal) time.Time {
	t.Helper()
	proc, err := os.FindProcess(p.PID(t))
	at := time.Now()
	if err == nil {
		err = proc.Signal(sig)
	}
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// tmuxStep reads what the tmux pane shows.
func (p *Pane) tmuxStep() (Step, error) {
	out, err := p.tmuxCmd("display-message", "-p", "-t", p.id, "#{@panestate_state}\t#{@panestate_message}").Output()
	if err != nil {
		return Step{}, err
	}
	state, msg, _ := strings.Cut(strings.TrimRight(string(out), "\n"), "\t")
	return Step{At: time.Now(), State: state, Message: msg}, nil
}

// poll records the tmux pane's options every 20 ms until stop.
func (p *Pane) poll() {
	defer close(p.done)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	last := Step{}
	for {
		if s, err := p.tmuxStep(); err == nil && (s.State != last.State || s.Message != last.Message) {
			last = s
			p.mu.Lock()
			p.steps = append(p.steps, s)
			close(p.changed)
			p.changed = make(chan struct{})
			p.mu.Unlock()
		}
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

// Timeline returns every change of what the pane showed, in order: for
// Herdr each report its server applied, for tmux each change the poll saw.
func (p *Pane) Timeline(t testing.TB) []Step {
	t.Helper()
	if p.Herdr == nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		return slices.Clone(p.steps)
	}
	calls, err := p.Herdr.Calls()
	if err != nil {
		t.Fatal(err)
	}
	return p.herdrTimeline(calls)
}

// herdrTimeline is the timeline of the Herdr pane in calls.
func (p *Pane) herdrTimeline(calls []herdrtest.Call) []Step {
	var steps []Step
	for _, c := range calls {
		if c.Arrival == 0 || !c.Applied || c.Pane != p.Herdr.Pane {
			continue
		}
		st := string(c.Status)
		if c.Agent == "" {
			st = ""
		}
		if n := len(steps); n > 0 && steps[n-1].State == st {
			continue
		}
		steps = append(steps, Step{At: c.Handled, State: st})
	}
	return steps
}

// States returns the states of steps, as Step.String renders them
// without the message.
func States(steps []Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, Step{State: s.State}.String())
	}
	return out
}

// WaitState waits until the pane shows state ("" for released) and
// returns the step that showed it first after since (the zero time: any).
// It fails the test after WaitTimeout with the timeline.
func (p *Pane) WaitState(t testing.TB, since time.Time, state string) Step {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), WaitTimeout)
	defer cancel()
	find := func(steps []Step) (Step, bool) {
		for _, s := range steps {
			if s.State == state && !s.At.Before(since) {
				return s, true
			}
		}
		return Step{}, false
	}
	if p.Herdr != nil {
		_, err := p.Herdr.WaitCalls(ctx, func(calls []herdrtest.Call) bool {
			_, ok := find(p.herdrTimeline(calls))
			return ok
		})
		if err != nil {
			t.Fatalf("agentlab: the pane did not show %s after %v: %v; timeline: %s; the pane shows:\n%s", Step{State: state}, since, err, p.Describe(t), p.screenOrErr())
		}
		s, _ := find(p.Timeline(t))
		return s
	}
	for {
		p.mu.Lock()
		s, ok := find(p.steps)
		ch := p.changed
		p.mu.Unlock()
		if ok {
			return s
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("agentlab: the pane did not show %s after %v within %v; timeline: %s; the pane shows:\n%s", Step{State: state}, since, WaitTimeout, p.Describe(t), p.screenOrErr())
		}
	}
}

// Describe renders the timeline as "+0.512s working, +1.020s idle, ...",
// times from Started.
func (p *Pane) Describe(t testing.TB) string {
	t.Helper()
	var parts []string
	for _, s := range p.Timeline(t) {
		parts = append(parts, fmt.Sprintf("+%.3fs %s", s.At.Sub(p.Started).Seconds(), s))
	}
	return strings.Join(parts, ", ")
}

// Leaks returns where marker reached the workspace: for Herdr every
// request its server received and every CLI call (argv, HERDR_*
// variables), for tmux every option of the pane, its window, its session
// and the server. None is the expected answer.
func (p *Pane) Leaks(t testing.TB, marker string) []string {
	t.Helper()
	var leaks []string
	if p.Herdr != nil {
		calls, err := p.Herdr.Calls()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			text := strings.Join(c.Args, " ") + " " + string(c.Params) + fmt.Sprint(c.Env)
			if strings.Contains(text, marker) {
				leaks = append(leaks, fmt.Sprintf("herdr %s: %s", c.Command, text))
			}
		}
		return leaks
	}
	for _, args := range [][]string{
		{"show-options", "-p", "-t", p.id}, {"show-options", "-w", "-t", p.id},
		{"show-options", "-t", p.id}, {"show-options", "-g"}, {"show-options", "-s"},
		{"show-environment", "-g"},
	} {
		if out := p.run(t, args...); strings.Contains(out, marker) {
			leaks = append(leaks, fmt.Sprintf("tmux %s: %s", strings.Join(args, " "), out))
		}
	}
	return leaks
}
