//go:build linux

package agentlab

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// shellCall is Gemini CLI's shell tool making the file out-<marker>.txt in
// the work directory: a command its policy asks the person about.
func shellCall(marker string) ToolCall {
	return ToolCall{Name: "run_shell_command", Input: map[string]any{"command": "touch out-" + marker + ".txt", "description": "Make a file"}}
}

// geminiReady is on Gemini CLI's screen once it takes a prompt.
const geminiReady = "Type your message"

// geminiDialog is on the screen while Gemini CLI asks to run a tool.
const geminiDialog = "Allow execution of"

// startGemini starts a pane of ws with Gemini CLI set up against model,
// running gemini with args, and waits until it takes a prompt.
func startGemini(t *testing.T, ws Workspace, model *ModelServer, args ...string) (*Pane, *Home, string) {
	t.Helper()
	bin := Binary(t, Gemini)
	home := NewHome(t)
	SetupGemini(t, home, model)
	p := StartPane(t, ws, home, PaneOptions{})
	t.Cleanup(func() { killHome(home) })
	p.Run(t, nil, append([]string{bin}, args...)...)
	return p, home, bin
}

// killHome kills every process that runs with home's HOME (the agent,
// its relaunched child, a bridge), before the pane's tmux server goes: a
// Gemini CLI that a failed test left mid-turn outlives the hang-up of its
// terminal, its parent then init.
func killHome(home *Home) {
	want := "HOME=" + home.Dir
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		if slices.Contains(strings.Split(string(env), "\x00"), want) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// prompt types text into the pane and, once it shows, Enter, and returns
// when the Enter was sent that started the turn (the pane shows working).
// Keys typed while Gemini CLI still starts (a resumed session loads its
// history after the prompt shows) are lost, and an Enter that comes too
// soon after the text, as in a paste, is taken as a new line: the text is
// typed again when it does not show within a second, Enter pressed again
// when no turn starts within two.
func prompt(t *testing.T, p *Pane, text string) time.Time {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	p.Type(t, text)
	for !within(time.Second, func() bool { return strings.Contains(p.Screen(t), text) }) {
		if time.Now().After(deadline) {
			t.Fatalf("%q did not appear in the pane within %v; it shows:\n%s", text, WaitTimeout, p.Screen(t))
		}
		p.Type(t, text)
	}
	// Enter is pressed again while no turn starts; a turn counts from the
	// first press, which may be the one that started it late.
	var first time.Time
	for {
		if sent := p.Keys(t, "Enter"); first.IsZero() {
			first = sent
		}
		started := func() bool {
			return slices.ContainsFunc(p.Timeline(t), func(s Step) bool { return !s.At.Before(first) && s.State != "idle" })
		}
		if within(2*time.Second, started) {
			return first
		}
		if time.Now().After(deadline) {
			t.Fatalf("no turn started after %q and Enter within %v; the pane shows:\n%s", text, WaitTimeout, p.Screen(t))
		}
	}
}

// within polls cond every 50 ms for at most d and reports whether it held.
func within(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// exitTwice ends Gemini CLI at its prompt with key pressed twice, and
// returns when the press that ended it was sent. A first press while it
// still finishes the turn's side requests cancels those instead, so the
// key is pressed until it asks for the second press (again), then once
// more.
func exitTwice(t *testing.T, p *Pane, key, again string) time.Time {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	for {
		sent := p.Keys(t, key)
		asked := false
		if within(time.Second, func() bool {
			asked = strings.Contains(p.Screen(t), again)
			return asked || p.dead(t)
		}) {
			if !asked {
				return sent
			}
			return p.Keys(t, key)
		}
		if time.Now().After(deadline) {
			t.Fatalf("gemini did not ask for a second %s; it shows:\n%s", key, p.Screen(t))
		}
	}
}

// dead reports whether the pane's program has exited.
func (p *Pane) dead(t testing.TB) bool {
	return strings.TrimSpace(p.run(t, "display-message", "-p", "-t", p.id, "#{pane_dead}")) == "1"
}

// wantStates fails when the pane's timeline is not want.
func wantStates(t *testing.T, p *Pane, want ...string) {
	t.Helper()
	if diff := cmp.Diff(States(p.Timeline(t)), want); diff != "" {
		t.Errorf("the pane showed (-got +want):\n%s\ntimeline: %s", diff, p.Describe(t))
	}
}

func TestGeminiHeadlessTurnWithATool(t *testing.T) {
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			model := StartModel(t, GeminiAPI, ToolTurn(shellCall("MARKCMD1"), "Done MARKFINAL1."))
			p, home, _ := startGemini(t, ws, model, "-p", "please make the file MARKPROMPT1", "--yolo")
			if code := p.WaitExit(t); code != 0 {
				t.Fatalf("gemini -p exited %d:\n%s", code, p.Screen(t))
			}
			p.WaitState(t, p.Started, "")
			if _, err := os.Stat(filepath.Join(home.Work, "out-MARKCMD1.txt")); err != nil {
				t.Errorf("the tool did not run: %v", err)
			}
			checkHeadless(t, p)
			t.Logf("%s: %s", ws, p.Describe(t))
			noLeaks(t, p, "MARKPROMPT1", "MARKCMD1", "MARKFINAL1")
		})
	}
}

// TestGeminiApprovedThenRejectedToolThenQuit: a turn whose tool the
// person allows, then one whose tool they reject (Escape: Gemini CLI fires
// no hook, the bridge reads the rejection in its transcript), then one
// they interrupt while the model streams, then /quit.
func TestGeminiApprovedThenRejectedToolThenQuit(t *testing.T) {
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			model := StartModel(t, GeminiAPI, ToolTurn(shellCall("MARKCMD2"), "Done MARKFINAL2."))
			p, home, _ := startGemini(t, ws, model)
			p.WaitScreen(t, geminiReady)
			p.WaitState(t, p.Started, "idle")

			sent := prompt(t, p, "please make the file MARKPROMPT2")
			p.WaitState(t, sent, "blocked")
			p.WaitScreen(t, geminiDialog)
			allowed := p.Keys(t, "Enter") // "1. Allow once"
			p.WaitState(t, allowed, "working")
			p.WaitState(t, allowed, "idle")
			if _, err := os.Stat(filepath.Join(home.Work, "out-MARKCMD2.txt")); err != nil {
				t.Errorf("the allowed tool did not run: %v", err)
			}

			model.SetScript(ToolTurn(shellCall("MARKCMD3"), "Done MARKFINAL3."))
			sent = prompt(t, p, "please make the file MARKPROMPT3")
			p.WaitState(t, sent, "blocked")
			p.WaitScreen(t, geminiDialog)
			rejected := p.Keys(t, "Escape")
			idle := p.WaitState(t, rejected, "idle")
			t.Logf("%s: rejected, idle %v later", ws, idle.At.Sub(rejected).Round(time.Millisecond))
			if _, err := os.Stat(filepath.Join(home.Work, "out-MARKCMD3.txt")); err == nil {
				t.Error("the rejected tool ran")
			}

			// An Escape while the model streams: Gemini CLI fires AfterAgent.
			model.SetScript(func(r Request) Reply { return Reply{Stall: r.Tools > 0} })
			sent = prompt(t, p, "a long one MARKPROMPT9")
			p.WaitState(t, sent, "working")
			p.WaitScreen(t, "esc to cancel")
			interrupted := p.Keys(t, "Escape")
			p.WaitState(t, interrupted, "idle")

			p.WaitScreen(t, geminiReady)
			p.Type(t, "/quit")
			p.WaitScreen(t, "Exit the cli") // its completion, which an Enter before it only fills in
			quit := p.Keys(t, "Enter")
			p.WaitState(t, quit, "")
			if code := p.WaitExit(t); code != 0 {
				t.Errorf("gemini exited %d after /quit", code)
			}
			wantStates(t, p, "idle", "working", "blocked", "working", "idle", "working", "blocked", "idle", "working", "idle", "released")
			t.Logf("%s: %s", ws, p.Describe(t))
			noLeaks(t, p, "MARKPROMPT2", "MARKCMD2", "MARKFINAL2", "MARKPROMPT3", "MARKCMD3", "MARKPROMPT9")
		})
	}
}

// TestGeminiResumeCommandResumesTheSession: the resume command Herdr got
// for the pane (hook.Resume with the payload's session_id), run against
// the same home, resumes that session: Gemini CLI sends the earlier turn
// with the next prompt, and the pane gets the same command again. The
// resumed session ends with Ctrl-C twice, a new one in tmux with Ctrl-D
// twice.
func TestGeminiResumeCommandResumesTheSession(t *testing.T) {
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			model := StartModel(t, GeminiAPI, Text("Hello MARKFINAL4."))
			p, _, bin := startGemini(t, ws, model)
			p.WaitScreen(t, geminiReady)
			// SessionStart's idle first: its hook can land within the 50 ms
			// throttle window of the prompt's working on a loaded machine,
			// which merges the two (a loaded race run saw working first).
			p.WaitState(t, p.Started, "idle")
			sent := prompt(t, p, "first turn MARKPROMPT4")
			p.WaitState(t, sent, "working")
			p.WaitState(t, sent, "idle")
			p.WaitScreen(t, "MARKFINAL4")
			if ws == Tmux {
				// tmux carries no resume command: end with Ctrl-D twice.
				end := exitTwice(t, p, "C-d", "Press Ctrl+D again to exit.")
				p.WaitState(t, end, "")
				if code := p.WaitExit(t); code != 0 {
					t.Errorf("gemini exited %d after Ctrl-D twice", code)
				}
				wantStates(t, p, "idle", "working", "idle", "released")
				return
			}
			argv, ok := p.Herdr.ResumeArgv(p.Herdr.Pane)
			if !ok || len(argv) != 3 || argv[0] != "gemini" || argv[1] != "--resume" {
				t.Fatalf("resume argv = %q, want gemini --resume <id>", argv)
			}
			end := exitTwice(t, p, "C-c", "Press Ctrl+C again to exit.")
			p.WaitState(t, end, "")
			p.WaitExit(t)

			asked := len(model.Requests())
			resumed := time.Now()
			p.Run(t, nil, append([]string{bin}, argv[1:]...)...)
			p.WaitScreen(t, geminiReady)
			p.WaitState(t, resumed, "idle")
			if again, _ := p.Herdr.ResumeArgv(p.Herdr.Pane); !slices.Equal(again, argv) {
				t.Errorf("after the resume the pane's resume argv = %q, want %q", again, argv)
			}
			sent = prompt(t, p, "second turn MARKPROMPT5")
			p.WaitState(t, sent, "idle")
			var history bool
			for _, r := range model.Requests()[asked:] {
				if strings.Contains(r.Prompt, "second turn MARKPROMPT5") && strings.Contains(string(r.Raw), "first turn MARKPROMPT4") {
					history = true
				}
			}
			if !history {
				t.Errorf("the resumed session's turn did not carry the first turn: %q did not resume it", argv)
			}
			end = exitTwice(t, p, "C-c", "Press Ctrl+C again to exit.")
			p.WaitState(t, end, "")
			t.Logf("%s: %s", ws, p.Describe(t))
			noLeaks(t, p, "MARKPROMPT4", "MARKFINAL4", "MARKPROMPT5")
		})
	}
}

// geminiAgent returns the process that runs Gemini CLI's session under
// the pane's program: Gemini CLI starts itself again as a child node
// process (its "relaunch", with a larger heap), which runs the hooks.
func geminiAgent(t *testing.T, pane int) int {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	for {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
			if len(fields) > 1 && fields[1] == strconv.Itoa(pane) {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no child of the pane's gemini (%d)", pane)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestGeminiKilledMidTurnReleasesThePane: a SIGKILL of the pane's own
// gemini process (the parent of the relaunched child) mid-turn ends only
// that one: the child, which runs the session and its hooks, works on
// and the pane follows it; the child killed too, the pane is released.
func TestGeminiKilledMidTurnReleasesThePane(t *testing.T) {
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			model := StartModel(t, GeminiAPI, func(r Request) Reply { return Reply{Stall: r.Tools > 0} })
			p, _, _ := startGemini(t, ws, model)
			p.WaitScreen(t, geminiReady)
			p.WaitState(t, p.Started, "idle") // as in the resume test
			sent := prompt(t, p, "a long one MARKPROMPT6")
			p.WaitState(t, sent, "working")
			agent := geminiAgent(t, p.PID(t))
			p.Kill(t, syscall.SIGKILL)
			p.WaitExit(t)
			if err := syscall.Kill(agent, 0); err != nil {
				t.Fatalf("the child %d is gone with its parent: %v", agent, err)
			}
			if s := States(p.Timeline(t)); s[len(s)-1] != "working" {
				t.Errorf("with the child at work, the pane shows %s", s[len(s)-1])
			}
			killed := time.Now()
			if err := syscall.Kill(agent, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			released := p.WaitState(t, killed, "")
			t.Logf("%s: released %v after the child's SIGKILL", ws, released.At.Sub(killed).Round(time.Millisecond))
			wantStates(t, p, "idle", "working", "released")
			noLeaks(t, p, "MARKPROMPT6")
		})
	}
}

// TestGeminiRunsNoHookInAFolderItDoesNotTrust: in a folder the person
// did not trust ("Don't trust" in Gemini CLI's dialog), no hook runs, those
// of ~/.gemini/settings.json included: a whole turn leaves the pane as it
// was.
func TestGeminiRunsNoHookInAFolderItDoesNotTrust(t *testing.T) {
	model := StartModel(t, GeminiAPI, Text("Hello MARKFINAL8."))
	bin := Binary(t, Gemini)
	home := NewHome(t)
	SetupGemini(t, home, model)
	home.WriteFile(t, ".gemini/trustedFolders.json", []byte("{}"))
	p := StartPane(t, Herdr, home, PaneOptions{})
	t.Cleanup(func() { killHome(home) })
	p.Run(t, nil, bin)
	p.WaitScreen(t, "Do you trust the files in this folder?")
	p.Type(t, "3") // "3. Don't trust"
	p.WaitScreen(t, "untrusted")
	p.WaitScreen(t, geminiReady)
	p.Type(t, "hello MARKPROMPT8")
	p.WaitScreen(t, "hello MARKPROMPT8")
	for !within(2*time.Second, func() bool { return strings.Contains(p.Screen(t), "MARKFINAL8") }) {
		p.Keys(t, "Enter") // again, should the first have come as a paste's new line
	}
	exitTwice(t, p, "C-c", "Press Ctrl+C again to exit.")
	p.WaitExit(t)
	if steps := p.Timeline(t); len(steps) != 0 {
		t.Errorf("in an untrusted folder the pane showed %s", p.Describe(t))
	}
	if calls, err := p.Herdr.Calls(); err != nil || len(calls) != 0 {
		t.Errorf("in an untrusted folder Herdr got %d calls (%v)", len(calls), err)
	}
}
