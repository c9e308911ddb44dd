package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// newSession runs cmd in a session of its own: no controlling terminal.
func newSession(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// screen is what a pty's master reads: everything the processes on the
// terminal wrote to it.
type screen struct {
	master  *os.File // the pty's master: closing it closes the tab
	mu      sync.Mutex
	out     []byte
	changed chan struct{} // closed and replaced at each read
}

// read copies master into s until master fails (it is closed).
func (s *screen) read(master *os.File) {
	buf := make([]byte, 4096)
	for {
		n, err := master.Read(buf)
		s.mu.Lock()
		s.out = append(s.out, buf[:n]...)
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// oscSeq matches the OSC 9;4 sequences, ST-terminated, and the OSC 7501
// ones, BEL-terminated as Charm's encoder ends them.
var oscSeq = regexp.MustCompile(`\x1b\](?:9;4;[^\x1b\x07]*\x1b\\|7501;[^\x1b\x07]*\x07)`)

// sequences returns the OSC 9;4 and OSC 7501 sequences written so far, in
// order, without their introducer and terminator; a refresh (the same
// working or blocked state again) is merged with the one before.
func (s *screen) sequences() []string {
	s.mu.Lock()
	out := bytes.Clone(s.out)
	s.mu.Unlock()
	var seqs []string
	for _, m := range oscSeq.FindAll(out, -1) {
		seq := strings.TrimSuffix(strings.TrimSuffix(string(m[2:]), "\a"), "\x1b\\")
		if len(seqs) > 0 && seqs[len(seqs)-1] == seq && refreshed(seq) {
			continue
		}
		seqs = append(seqs, seq)
	}
	return seqs
}

// refreshed reports whether a reporter sends seq again while it holds:
// the terminal reporter refreshes working and blocked.
func refreshed(seq string) bool { return seq == "9;4;3" || seq == "9;4;4;100" }

// wait waits until n sequences were written, and fails after 10 s.
func (s *screen) wait(t *testing.T, step string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		if len(s.sequences()) >= n {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("after %s: the terminal got %q, want %d sequences", step, s.sequences(), n)
		}
	}
}

// waitText waits until the terminal shows text, and fails after 10 s.
func (s *screen) waitText(t *testing.T, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		s.mu.Lock()
		changed, shown := s.changed, bytes.Contains(s.out, []byte(text))
		s.mu.Unlock()
		if shown {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("the terminal shows %q, want %q in it", s.out, text)
		}
	}
}

// startAgentTTY starts a stand-in agent on a new pty, as its controlling
// terminal and its stdin, stdout and stderr, as an agent runs in a tab. It
// runs its hooks in sessions of their own, with no terminal at all (see
// standIn). It returns the agent and what the terminal shows.
func startAgentTTY(t *testing.T, bin, agent string, env []string) (*agentProc, *screen) {
	t.Helper()
	return startAgentOn(t, bin, agent, env, onTTY)
}

// ttyUse is how a stand-in agent has the pty.
type ttyUse int

const (
	offTTY         ttyUse = iota // not at all: stdin, stdout and stderr on /dev/null
	onTTY                        // as its controlling terminal, stdin, stdout and stderr
	controlledOnly               // as its controlling terminal only (it opens /dev/tty itself), stdio on /dev/null
)

// startAgentOn is startAgentTTY, with the pty used as use says.
func startAgentOn(t *testing.T, bin, agent string, env []string, use ttyUse) (*agentProc, *screen) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	master, tty, err := openPty(t)
	if err != nil {
		t.Fatal(err)
	}
	orders, ordersW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	answersR, answers, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, agent)
	cmd.Env = append(env, standInEnv+"="+bin, standInTTYEnv+"=1")
	cmd.ExtraFiles = []*os.File{orders, answers}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	switch use {
	case onTTY:
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.SysProcAttr.Setctty = true
	case controlledOnly:
		cmd.ExtraFiles = append(cmd.ExtraFiles, tty) // fd 5
		cmd.SysProcAttr.Setctty = true
		cmd.SysProcAttr.Ctty = 5
	}
	err = cmd.Start()
	tty.Close()
	orders.Close()
	answers.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := &screen{master: master, changed: make(chan struct{})}
	var reading sync.WaitGroup
	reading.Go(func() { s.read(master) })
	a := &agentProc{cmd: cmd, in: ordersW, out: bufio.NewScanner(answersR)}
	t.Cleanup(func() {
		a.in.Close()
		_ = a.cmd.Process.Kill()
		_ = a.cmd.Wait()
		answersR.Close()
		master.Close()
		reading.Wait()
	})
	return a, s
}

// openPty opens a pty whose master is read through the runtime's poller,
// so that closing it ends a read in progress: otherwise the read ends only
// once every holder of the terminal closed it, and a bridge that never
// ends (a bug) would hang the test instead of failing it.
func openPty(t *testing.T) (master, tty *os.File, err error) {
	t.Helper()
	m, tty, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	defer m.Close()
	fd, err := unix.Dup(int(m.Fd()))
	if err != nil {
		tty.Close()
		return nil, nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		tty.Close()
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), m.Name()), tty, nil
}

// ttyEnv is the environment of an agent in a tab of a terminal the
// terminal reporter knows (Ghostty 1.2.0), in a pane of tmux's that the
// test does not run (TMUX_PANE without TMUX: the hook starts its bridge,
// the tmux reporter finds no server), with HOME holding settings.
func ttyEnv(t *testing.T, rt []string, files map[string]string) []string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, ".panestate", "agent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color",
		"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0", "TMUX_PANE=%1"}, rt...)
}

// ttyStep is a hook the stand-in agent runs and the sequences the terminal
// then holds ("" for none more).
type ttyStep struct {
	event string
	adds  []string
}

// Sequences the bridge writes for app panestate.
const (
	osc94Idle    = "9;4;0"
	osc94Working = "9;4;3"
	osc94Blocked = "9;4;4;100"

	psIdle    = "7501;state=idle:id=panestate:app=panestate"
	psWorking = "7501;state=working:id=panestate:app=panestate"
	psBlocked = "7501;state=blocked:id=panestate:kind=permission:app=panestate:msg=V2FpdGluZyBmb3IgYXBwcm92YWw="
	psDone    = "7501;state=done:id=panestate:app=panestate"
	psClear   = "7501;state=clear:id=panestate"
)

// TestHooksReportToTheAgentsTerminal runs whole sessions whose hooks have
// no terminal, from a stand-in agent on a pty: the bridge finds the agent's
// terminal and writes the state to it, exactly, ending with the goodbye;
// nothing else of the payloads reaches the terminal.
// claudeTurn is a whole Claude Code session of one turn with a permission
// asked, and what each hook adds to the terminal ("" for nothing).
func claudeTurn(idle, working, blocked, done, bye string) []ttyStep {
	return []ttyStep{
		{"SessionStart", []string{idle}},
		{"UserPromptSubmit", []string{working}},
		{"PreToolUse", nil},
		{"PermissionRequest", []string{blocked}},
		{"PostToolUse", []string{working}},
		{"Stop", []string{done}},
		{"SessionEnd", []string{bye}},
	}
}

// progstatusOnly is a settings file that forces OSC 7501 and turns OSC 9;4
// off, so that one reporter writes to the terminal.
const progstatusOnly = `{"progstatus": {"enabled": true}, "terminal": {"enabled": false}}`

// geminiPS is geminiTurn as the OSC 7501 records each hook adds.
var geminiPS = []ttyStep{
	{"SessionStart", []string{psIdle}},
	{"BeforeAgent", []string{psWorking}},
	{"BeforeTool", nil},
	{"Notification", []string{psBlocked}},
	{"AfterTool", []string{psWorking}},
	{"AfterAgent", []string{psDone}},
	{"SessionEnd", []string{psClear}},
}

// geminiTurn is a whole Gemini CLI session of one turn with a permission
// asked (its Notification), and the OSC 9;4 sequence each hook adds.
var geminiTurn = []ttyStep{
	{"SessionStart", []string{osc94Idle}},
	{"BeforeAgent", []string{osc94Working}},
	{"BeforeTool", nil},
	{"Notification", []string{osc94Blocked}},
	{"AfterTool", []string{osc94Working}},
	{"AfterAgent", []string{osc94Idle}},
	{"SessionEnd", []string{osc94Idle}},
}

func TestHooksReportToTheAgentsTerminal(t *testing.T) {
	bin := buildPanestate(t)
	tests := []struct {
		name  string
		agent string
		files map[string]string
		steps []ttyStep
	}{
		{name: "gemini, OSC 9;4 by default", agent: "gemini", steps: geminiTurn},
		{name: "claude-code, OSC 9;4 forced", agent: "claude-code",
			files: map[string]string{"claude-code.json": `{"terminal": {"enabled": true}}`},
			steps: claudeTurn(osc94Idle, osc94Working, osc94Blocked, osc94Idle, osc94Idle)},
		{name: "claude-code, OSC 7501 forced: its own record wins, nothing", agent: "claude-code",
			files: map[string]string{"settings.json": `{"progstatus": {"enabled": true}}`},
			steps: claudeTurn("", "", "", "", "")},
		{name: "gemini, OSC 7501 forced", agent: "gemini", files: map[string]string{"settings.json": progstatusOnly}, steps: geminiPS},
		{name: "claude-code, its own OSC 9;4 left alone", agent: "claude-code",
			steps: claudeTurn("", "", "", "", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, rt := runtimeEnv(t)
			env := ttyEnv(t, rt, tt.files)
			a, s := startAgentTTY(t, bin, tt.agent, env)
			var want []string
			pid := 0
			for _, st := range tt.steps {
				a.hook(t, fixture(tt.agent, st.event))
				if pid == 0 {
					pid = bridgeIn(t, bin, dir)
				}
				for _, seq := range st.adds {
					if seq != "" {
						want = append(want, seq)
					}
				}
				s.wait(t, st.event, len(want))
			}
			waitExit(t, pid)
			if diff := cmp.Diff(s.sequences(), want); diff != "" {
				t.Errorf("sequences on the agent's terminal (-got +want):\n%s", diff)
			}
			checkScreen(t, s)
			doctorSays(t, env, tt.agent, "; its last bridge here writes to terminal /dev/pts/")
		})
	}
}

// doctorSays fails unless `panestate doctor --terminal` in env says want
// on agent's line.
func doctorSays(t *testing.T, env []string, agent, want string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"doctor", "--probe=false", "--terminal"}, nil, &stdout, &stderr, env); code == 2 {
		t.Fatalf("doctor: exit 2: %s", stderr.String())
	}
	_, hooks, _ := strings.Cut(stdout.String(), "\nhooks: ")
	for line := range strings.Lines(hooks) {
		if strings.HasPrefix(line, "  "+agent+": ") {
			if !strings.Contains(line, want) {
				t.Errorf("doctor says %q, want %q in it", line, want)
			}
			return
		}
	}
	t.Errorf("doctor has no line for %s:\n%s", agent, stdout.String())
}

// TestAgentWithoutTerminal: an agent whose output is not a terminal, and
// whose hooks have none: the bridge reports to no terminal, writes nothing
// to any, and the doctor says what the hook found. An agent whose stdin,
// stdout and stderr are not a terminal but which has one as its
// controlling terminal (a program that draws on /dev/tty): the bridge
// finds that terminal and writes to it, named by its device.
func TestAgentWithoutTerminal(t *testing.T) {
	bin := buildPanestate(t)
	refused := "/dev/null: owned by user 0"
	if os.Getuid() == 0 {
		refused = "/dev/null: not a terminal"
	}
	tests := []struct {
		name   string
		use    ttyUse
		want   []string // the sequences on the pty
		doctor string
	}{
		{name: "none at all", use: offTTY,
			doctor: "; its last bridge here found no terminal: terminal " + refused + "\n"},
		{name: "only a controlling terminal", use: controlledOnly, want: []string{osc94Working, osc94Idle},
			doctor: "; its last bridge here writes to terminal /dev/pts/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, rt := runtimeEnv(t)
			env := ttyEnv(t, rt, nil)
			a, s := startAgentOn(t, bin, "gemini", env, tt.use)
			a.hook(t, fixture("gemini", "BeforeAgent"))
			s.wait(t, "BeforeAgent", min(len(tt.want), 1))
			pid := bridgeIn(t, bin, dir)
			a.hook(t, fixture("gemini", "SessionEnd"))
			s.wait(t, "SessionEnd", len(tt.want))
			waitExit(t, pid)
			if diff := cmp.Diff(s.sequences(), tt.want); diff != "" {
				t.Errorf("sequences on the pty (-got +want):\n%s", diff)
			}
			checkScreen(t, s)
			doctorSays(t, env, "gemini", tt.doctor)
		})
	}
}

// bridgeIn returns the one bridge (a process running bin) whose files are
// in dir. The hook that started it has returned, so it runs, but it may
// not have written its pid file yet.
func bridgeIn(t *testing.T, bin, dir string) int {
	t.Helper()
	var found []int
	for _, pid := range leftovers(bin) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 3 && args[1] == bridgeCommand && strings.HasPrefix(args[3], dir+string(filepath.Separator)) {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		t.Fatalf("bridges in %s: %v, want one", dir, found)
	}
	return found[0]
}

// checkScreen fails when the terminal shows anything of the payloads.
func checkScreen(t *testing.T, s *screen) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if bytes.Contains(s.out, []byte(marker)) {
		t.Errorf("the agent's terminal got a private field: %q", s.out)
	}
}

// TestAgentKilledMidTurnClearsItsTerminal: the agent's SIGKILL mid-turn
// ends its bridge, which says goodbye on the agent's terminal, in a pane
// and in a plain terminal tab (no Herdr or tmux pane).
func TestAgentKilledMidTurnClearsItsTerminal(t *testing.T) {
	bin := buildPanestate(t)
	tests := []struct {
		name    string
		agent   string
		tab     bool // a plain terminal tab, Ghostty 1.2.0
		files   map[string]string
		working string
		bye     string
	}{
		{name: "OSC 9;4", agent: "claude-code", files: map[string]string{"claude-code.json": `{"terminal": {"enabled": true}}`},
			working: osc94Working, bye: osc94Idle},
		{name: "OSC 7501", agent: "gemini", files: map[string]string{"settings.json": progstatusOnly},
			working: psWorking, bye: psClear},
		{name: "OSC 9;4 in a plain tab", agent: "gemini", tab: true, working: osc94Working, bye: osc94Idle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, rt := runtimeEnv(t)
			env, turn := ttyEnv(t, rt, tt.files), "UserPromptSubmit"
			if tt.tab {
				env = tabEnv(t, rt, tt.files, ghostty...)
			}
			if tt.agent == "gemini" {
				turn = "BeforeAgent"
			}
			a, s := startAgentTTY(t, bin, tt.agent, env)
			a.hook(t, fixture(tt.agent, turn))
			s.wait(t, turn, 1)
			pid := bridgeIn(t, bin, dir)
			killed := time.Now()
			if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = a.cmd.Wait()
			s.wait(t, "SIGKILL", 2)
			t.Logf("goodbye on the terminal %v after the agent's SIGKILL", time.Since(killed).Round(time.Millisecond))
			waitExit(t, pid)
			if diff := cmp.Diff(s.sequences(), []string{tt.working, tt.bye}); diff != "" {
				t.Errorf("sequences on the agent's terminal (-got +want):\n%s", diff)
			}
			checkScreen(t, s)
			noLeftovers(t, bin)
		})
	}
}

// TestTabClosedReleasesTheOtherWorkspaces: the agent's tab is closed (the
// pty's master, so the bridge's writes to the terminal fail with EIO) and
// the agent dies: the bridge still releases the Herdr pane and ends.
func TestTabClosedReleasesTheOtherWorkspaces(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{})
	dir, rt := runtimeEnv(t)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".panestate", "agent"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".panestate", "agent", "settings.json"), []byte(`{"terminal": {"enabled": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(h.PaneEnv(home), rt...)
	env = append(env, "TERM=xterm-256color", "TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0")
	a, s := startAgentTTY(t, bin, "gemini", env)
	a.hook(t, fixture("gemini", "BeforeAgent"))
	waitStatus(t, h, "BeforeAgent", herdrtest.StatusWorking)
	s.wait(t, "BeforeAgent", 1)
	pid := bridgeIn(t, bin, dir)
	s.master.Close() // the tab closes: the agent gets SIGHUP
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	waitStatus(t, h, "the tab closed", "")
	waitExit(t, pid)
	noLeftovers(t, bin)
}

// TestOpenTerminalRefuses: what is not a terminal of this user is never
// written to, and the reason names it.
func TestOpenTerminalRefuses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, why string
	}{
		{name: "a plain file", path: file, why: "not a character device"},
		{name: "a device that is no terminal", path: "/dev/null", why: "owned by user"},
		{name: "missing", path: filepath.Join(t.TempDir(), "nothing"), why: "cannot open it"},
		// Refused before it is opened: opening a FIFO with no reader
		// would fail otherwise ("no such device or address").
		{name: "a FIFO, not opened", path: fifo, why: "not a character device"},
	}
	if os.Getuid() == 0 {
		tests[1].why = "not a terminal" // root owns /dev/null
		// Root can give a terminal away: another user's pty is refused
		// (as any other user, /dev/null above, root's, proves the check).
		master, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer master.Close()
		defer tty.Close()
		if err := os.Chown(tty.Name(), 4242, -1); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct{ name, path, why string }{name: "another user's terminal", path: tty.Name(), why: "owned by user 4242"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fd, err := openTerminal(tt.path)
			if err == nil {
				syscall.Close(fd)
				t.Fatalf("openTerminal(%s) took it", tt.path)
			}
			if !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("openTerminal(%s) = %v, want the path and %q", tt.path, err, tt.why)
			}
		})
	}
}

// BenchmarkAgentTerminal times what the hook that starts a bridge adds to
// find and open the agent's terminal: an agent (sleep) on a pty, its
// descriptors read from /proc, the device opened and checked.
func BenchmarkAgentTerminal(b *testing.B) {
	master, tty, err := pty.Open()
	if err != nil {
		b.Fatal(err)
	}
	defer master.Close()
	cmd := exec.Command("sleep", "60")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	err = cmd.Start()
	tty.Close()
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	b.ReportAllocs()
	for b.Loop() {
		fd, _, err := agentTerminal(cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		syscall.Close(fd)
	}
}

// TestTerminalWriteNeverBlocks: a terminal whose output is stopped (Ctrl-S)
// makes the bridge's write fail at once instead of hanging it, and takes
// the writes again once started (Ctrl-Q).
func TestTerminalWriteNeverBlocks(t *testing.T) {
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer tty.Close()
	fd, err := openTerminal(tty.Name())
	if err != nil {
		t.Fatal(err)
	}
	w := ttyWriter{fd: fd}
	if _, err := master.Write([]byte{0x13}); err != nil { // Ctrl-S: output stops (IXON)
		t.Fatal(err)
	}
	// The line discipline takes the Ctrl-S asynchronously: write until the
	// terminal refuses (stopped, or its buffer full when the Ctrl-S comes
	// late), a bounded number of times.
	var werr error
	taken := 0
	for range 1 << 16 {
		if _, werr = w.Write([]byte("\x1b]9;4;3\x1b\\")); werr != nil {
			break
		}
		taken++
	}
	t.Logf("the terminal took %d writes before it refused", taken)
	if !errors.Is(werr, errTerminalBusy) {
		t.Fatalf("writes to a stopped terminal: %v, want %v", werr, errTerminalBusy)
	}
	if _, err := master.Write([]byte{0x11}); err != nil { // Ctrl-Q: output resumes
		t.Fatal(err)
	}
	s := &screen{changed: make(chan struct{})}
	var reading sync.WaitGroup
	reading.Go(func() { s.read(master) })
	defer func() {
		// The master's read ends (EIO) once no one holds the terminal.
		w.Close()
		tty.Close()
		reading.Wait()
	}()
	// The Ctrl-Q too is taken asynchronously: the terminal refuses until
	// then, never for long.
	for deadline := time.Now().Add(10 * time.Second); ; {
		_, err := w.Write([]byte("\x1b]9;4;0\x1b\\"))
		if err == nil {
			break
		}
		if !errors.Is(err, errTerminalBusy) || time.Now().After(deadline) {
			t.Fatalf("writes after Ctrl-Q: %v", err)
		}
	}
	// What the terminal took before it refused comes first (the Ctrl-S
	// may be taken after some writes).
	want := []string{osc94Idle}
	if taken > 0 {
		want = []string{osc94Working, osc94Idle}
	}
	s.wait(t, "Ctrl-Q", len(want))
	if diff := cmp.Diff(s.sequences(), want); diff != "" {
		t.Errorf("the terminal got (-got +want):\n%s", diff)
	}
}
