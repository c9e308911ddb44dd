//go:build linux

package agentlab

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// bashCall is a Bash tool call that makes the file out-<marker>.txt in the
// work directory.
func bashCall(marker string) ToolCall {
	return ToolCall{Name: "Bash", Input: map[string]any{"command": "echo done > out-" + marker + ".txt", "description": "Make a file"}}
}

// claude is one Claude Code run in a pane, talking to a mock model.
type claude struct {
	bin   string
	home  *Home
	model *ModelServer
	pane  *Pane
}

// newClaude prepares Claude Code in a pane of ws, answering with script.
func newClaude(t *testing.T, ws Workspace, script Script, opts PaneOptions) *claude {
	t.Helper()
	c := &claude{bin: Binary(t, ClaudeCode), home: NewHome(t)}
	c.model = StartModel(t, Anthropic, script)
	SetupClaude(t, c.home, c.model)
	c.pane = StartPane(t, ws, c.home, opts)
	return c
}

// start runs interactive Claude Code with args and waits until it shows
// idle and its prompt is ready for keys.
func (c *claude) start(t *testing.T, args ...string) {
	t.Helper()
	c.pane.Run(t, nil, append([]string{c.bin}, args...)...)
	c.pane.WaitState(t, time.Time{}, "idle")
	c.pane.WaitScreen(t, "mode on")
}

// prompt types text, waits until Claude Code shows it (an Enter that
// comes with the text can be taken as part of a paste), then Enter, and
// returns when tmux took the Enter.
// An Enter can be lost too under load: when the pane has not shown
// working within two seconds of a prompt (not a command), Enter is
// pressed again, at most three times; the time returned is the first's.
func (c *claude) prompt(t *testing.T, text string) time.Time {
	t.Helper()
	c.pane.Type(t, text)
	c.pane.WaitScreen(t, text)
	first := c.pane.Keys(t, "Enter")
	if strings.HasPrefix(text, "/") {
		return first // a command: an Enter after it would reach a closed pane
	}
	for range 2 {
		if c.showedWithin(t, first, "working", 2*time.Second) {
			break
		}
		c.pane.Keys(t, "Enter")
	}
	return first
}

// showedWithin reports whether the pane showed state after since, waiting
// at most d for it (polling its timeline every 50 ms).
func (c *claude) showedWithin(t *testing.T, since time.Time, state string, d time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		for _, s := range c.pane.Timeline(t) {
			if s.State == state && !s.At.Before(since) {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// answer presses key on the permission dialog until it closes and returns
// the time of the first press: a key that comes while the dialog is still
// being drawn can be lost, so it is pressed again (at most three times)
// while the dialog stays up for a second. The first press is the time to
// wait from: the pane was blocked before it, and a press that worked but
// left the dialog on the screen a while would otherwise put the state it
// caused before the time returned.
func (c *claude) answer(t *testing.T, key string) time.Time {
	t.Helper()
	var at time.Time
	for range 3 {
		if sent := c.pane.Keys(t, key); at.IsZero() {
			at = sent
		}
		deadline := time.Now().Add(time.Second)
		for time.Now().Before(deadline) {
			if !strings.Contains(c.pane.Screen(t), "Do you want to proceed?") {
				return at
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Fatalf("the dialog is still up after three presses of %s:\n%s", key, c.pane.Screen(t))
	return at
}

// exit ends Claude Code with /exit and waits until the pane is released
// and Claude Code has exited 0.
func (c *claude) exit(t *testing.T) {
	t.Helper()
	at := c.prompt(t, "/exit")
	c.pane.WaitState(t, at, "")
	if code := c.pane.WaitExit(t); code != 0 {
		t.Errorf("claude exited %d after /exit", code)
	}
}

// checkTimeline compares the states the pane showed with want.
func (c *claude) checkTimeline(t *testing.T, want ...string) {
	t.Helper()
	got := States(c.pane.Timeline(t))
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("the pane showed (-got +want):\n%s\ntimeline: %s", diff, c.pane.Describe(t))
	}
	t.Logf("%s: %s", c.pane.Workspace, c.pane.Describe(t))
}

// checkPrivate fails when a marker reached the workspace.
func (c *claude) checkPrivate(t *testing.T, markers ...string) {
	t.Helper()
	for _, m := range markers {
		if leaks := c.pane.Leaks(t, m); len(leaks) > 0 {
			t.Errorf("%s reached the workspace: %q", m, leaks)
		}
	}
}

// watchTranscript returns a channel that gets the time the session's
// transcript first holds text, seen through a file watch on Claude Code's
// projects directory (a change wakes it, nothing polls), and is closed
// when the test ends.
func (c *claude) watchTranscript(t *testing.T, text string) <-chan time.Time {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(c.home.Dir, ".claude", "projects", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts: %q, want one", files)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(filepath.Dir(files[0])); err != nil {
		w.Close()
		t.Fatal(err)
	}
	seen, stop, done := make(chan time.Time, 1), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer w.Close()
		for {
			select {
			case <-stop:
				return
			case <-w.Errors:
			case ev := <-w.Events:
				at := time.Now()
				if b, err := os.ReadFile(files[0]); ev.Name == files[0] && err == nil && strings.Contains(string(b), text) {
					seen <- at
					return
				}
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return seen
}

// ran reports whether the tool call of bashCall(marker) ran.
func (c *claude) ran(marker string) bool {
	_, err := os.Stat(filepath.Join(c.home.Work, "out-"+marker+".txt"))
	return err == nil
}

func TestClaudeCodeHeadlessTurnWithATool(t *testing.T) {
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			c := newClaude(t, ws, ToolTurn(bashCall("MARKCMD1"), "Done MARKFINAL1."), PaneOptions{})
			c.pane.Run(t, nil, c.bin, "-p", "please make the file MARKPROMPT1", "--allowedTools", "Bash")
			if code := c.pane.WaitExit(t); code != 0 {
				t.Fatalf("claude -p exited %d:\n%s", code, c.pane.Screen(t))
			}
			c.pane.WaitState(t, time.Time{}, "")
			if !c.ran("MARKCMD1") {
				t.Error("the tool did not run")
			}
			checkHeadless(t, c.pane)
			t.Logf("%s: %s", ws, c.pane.Describe(t))
			c.checkPrivate(t, "MARKPROMPT1", "MARKCMD1", "MARKFINAL1")
		})
	}
}

func TestClaudeCodeApprovedPermission(t *testing.T) {
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			c := newClaude(t, ws, ToolTurn(bashCall("MARKCMD2"), "Done MARKFINAL2."), PaneOptions{})
			c.start(t, "--permission-mode", "default")
			asked := c.prompt(t, "please make the file MARKPROMPT2")
			c.pane.WaitScreen(t, "Do you want to proceed?")
			c.pane.WaitState(t, asked, "blocked")
			approved := c.answer(t, "1") // "1. Yes"
			c.pane.WaitState(t, approved, "idle")
			if !c.ran("MARKCMD2") {
				t.Error("the approved tool did not run")
			}
			c.exit(t)
			c.checkTimeline(t, "idle", "working", "blocked", "working", "idle", "released")
			c.checkPrivate(t, "MARKPROMPT2", "MARKCMD2", "MARKFINAL2")
		})
	}
}

// TestClaudeCodeApprovedToolThatFailsShowsWorking: an approved tool that
// fails fires PostToolUseFailure, not PostToolUse; the turn goes on (here
// the model's next answer never ends), so the pane must leave blocked for
// working rather than wait for the turn's end.
func TestClaudeCodeApprovedToolThatFailsShowsWorking(t *testing.T) {
	fails := ToolCall{Name: "Bash", Input: map[string]any{"command": "echo MARKCMD8 && exit 3", "description": "Fail"}}
	script := func(r Request) Reply {
		switch {
		case r.Tools == 0:
			return Reply{Text: "ok"}
		case len(r.Results) > 0:
			return Reply{Stall: true}
		}
		c := fails
		return Reply{Tool: &c}
	}
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			c := newClaude(t, ws, script, PaneOptions{})
			c.start(t, "--permission-mode", "default")
			asked := c.prompt(t, "please run it MARKPROMPT8")
			c.pane.WaitScreen(t, "Do you want to proceed?")
			c.pane.WaitState(t, asked, "blocked")
			approved := c.answer(t, "1") // "1. Yes"
			c.pane.WaitState(t, approved, "working")
			killed := c.pane.Kill(t, syscall.SIGKILL)
			c.pane.WaitState(t, killed, "")
			c.checkTimeline(t, "idle", "working", "blocked", "working", "released")
			c.checkPrivate(t, "MARKPROMPT8", "MARKCMD8")
		})
	}
}

// TestClaudeCodeRejectedPermissionGoesIdle: Escape on the permission
// dialog fires no hook; the bridge reads the rejection Claude Code appends
// to its transcript and shows idle within a second.
func TestClaudeCodeRejectedPermissionGoesIdle(t *testing.T) {
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			c := newClaude(t, ws, ToolTurn(bashCall("MARKCMD3"), "Done MARKFINAL3."), PaneOptions{})
			c.start(t, "--permission-mode", "default")
			asked := c.prompt(t, "please make the file MARKPROMPT3")
			c.pane.WaitScreen(t, "Do you want to proceed?")
			c.pane.WaitState(t, asked, "blocked")
			onDisk := c.watchTranscript(t, `"toolDenialKind":"user-rejected"`)
			rejected := c.answer(t, "Escape")
			idle := c.pane.WaitState(t, rejected, "idle")
			var written time.Time
			select {
			case written = <-onDisk:
			case <-time.After(WaitTimeout):
				t.Fatal("the rejection never reached Claude Code's transcript")
			}
			t.Logf("%s: reject→idle %d ms; Claude Code had the rejection in its transcript %d ms after the Escape, the pane showed idle %d ms after that",
				ws, idle.At.Sub(rejected).Milliseconds(), written.Sub(rejected).Milliseconds(), idle.At.Sub(written).Milliseconds())
			if took := idle.At.Sub(written); took > time.Second {
				t.Errorf("the pane went idle %v after the rejection reached the transcript, want within 1 s", took)
			}
			c.pane.WaitScreen(t, "Interrupted")
			if c.ran("MARKCMD3") {
				t.Error("the rejected tool ran")
			}
			c.exit(t)
			c.checkTimeline(t, "idle", "working", "blocked", "idle", "released")
			c.checkPrivate(t, "MARKPROMPT3", "MARKCMD3")
		})
	}
}

func TestClaudeCodeKilledMidTurnReleasesThePane(t *testing.T) {
	stall := func(r Request) Reply {
		if r.Tools == 0 {
			return Reply{Text: "ok"}
		}
		return Reply{Stall: true}
	}
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			c := newClaude(t, ws, stall, PaneOptions{})
			c.start(t)
			asked := c.prompt(t, "please think about MARKPROMPT4")
			c.pane.WaitState(t, asked, "working")
			c.pane.WaitScreen(t, "esc to interrupt")
			killed := c.pane.Kill(t, syscall.SIGKILL)
			released := c.pane.WaitState(t, killed, "")
			t.Logf("%s: SIGKILL→released %d ms", ws, released.At.Sub(killed).Milliseconds())
			// 0 where tmux did not learn the status (WaitExit).
			if code := c.pane.WaitExit(t); code != 128+9 && code != 0 {
				t.Errorf("claude exited %d, want 137 (SIGKILL)", code)
			}
			c.checkTimeline(t, "idle", "working", "released")
			c.checkPrivate(t, "MARKPROMPT4")
		})
	}
}

// TestClaudeCodeResumeCommandResumesTheSession: the resume command the
// Herdr 0.9.3 pane got, run as it is (claude found on PATH), resumes that
// very session: the model gets the first session's conversation, and the
// pane gets the same command again.
func TestClaudeCodeResumeCommandResumesTheSession(t *testing.T) {
	t.Parallel()
	c := newClaude(t, Herdr, Text("Noted MARKFINAL5."), PaneOptions{HerdrVersion: herdrtest.Version093})
	c.home.Setenv("PATH=" + filepath.Dir(c.bin) + string(os.PathListSeparator) + strings.TrimPrefix(lookupEnv(c.home.Env(), "PATH"), "PATH="))
	c.start(t)
	asked := c.prompt(t, "remember the word MARKPROMPT5")
	c.pane.WaitState(t, asked, "working")
	c.pane.WaitState(t, asked, "idle")
	resume, ok := c.pane.Herdr.ResumeArgv(c.pane.Herdr.Pane)
	if !ok || len(resume) != 3 || resume[0] != "claude" || resume[1] != "--resume" {
		t.Fatalf("the pane's resume command is %q (%v), want claude --resume <id>", resume, ok)
	}
	c.exit(t)

	before := len(c.model.Requests())
	c.pane.Run(t, nil, resume...)
	c.pane.WaitScreen(t, "MARKPROMPT5") // the resumed conversation is on the screen
	c.pane.WaitScreen(t, "mode on")
	again := c.prompt(t, "what was the word?")
	c.pane.WaitState(t, again, "idle")
	var found bool
	for _, r := range c.model.Requests()[before:] {
		if r.Tools > 0 && strings.Contains(string(r.Raw), "remember the word MARKPROMPT5") && strings.Contains(string(r.Raw), "what was the word?") {
			found = true
		}
	}
	if !found {
		t.Error("no model request after the resume carries the first session's prompt with the new one")
	}
	if got, _ := c.pane.Herdr.ResumeArgv(c.pane.Herdr.Pane); !slices.Equal(got, resume) {
		t.Errorf("after the resume the pane's command is %q, want %q", got, resume)
	}
	c.exit(t)
	c.checkPrivate(t, "MARKPROMPT5", "MARKFINAL5")
}

// lookupEnv returns the "KEY=value" of key in env, or "".
func lookupEnv(env []string, key string) string {
	for _, kv := range slices.Backward(env) {
		if strings.HasPrefix(kv, key+"=") {
			return kv
		}
	}
	return ""
}

// TestClaudeCodeAutoModeClassifierNeverShowsBlocked: Claude Code 2.1.328
// starts in auto mode, where the model server's classifier answers
// permissions (the mock's verdict, in the message's safeguard_results).
// Whether it lets the tool run or blocks it, no PermissionRequest fires
// (a blocked one fires PermissionDenied) and the pane never shows blocked.
func TestClaudeCodeAutoModeClassifierNeverShowsBlocked(t *testing.T) {
	for _, tt := range []struct {
		review string
		ran    bool
	}{{ReviewPass, true}, {ReviewFlag, false}} {
		t.Run(tt.review, func(t *testing.T) {
			t.Parallel()
			call := bashCall("MARKCMD6")
			call.Review = tt.review
			c := newClaude(t, Herdr, ToolTurn(call, "Done MARKFINAL6."), PaneOptions{})
			c.start(t) // auto mode: the default
			asked := c.prompt(t, "please make the file MARKPROMPT6")
			c.pane.WaitState(t, asked, "working")
			c.pane.WaitState(t, asked, "idle")
			if c.ran("MARKCMD6") != tt.ran {
				t.Errorf("the tool ran: %v, want %v", c.ran("MARKCMD6"), tt.ran)
			}
			c.exit(t)
			c.checkTimeline(t, "idle", "working", "idle", "released")
			c.checkPrivate(t, "MARKPROMPT6", "MARKCMD6", "MARKFINAL6")
		})
	}
}

// TestClaudeCodeAutoModeWithoutItsClassifierShowsBlocked: where the model
// server gives no verdict (a gateway that drops it), auto mode asks the
// person with a dialog, fires no PermissionRequest, and about 6 s later a
// Notification agent_needs_input: the pane shows blocked from then on,
// and idle once the person cancels.
func TestClaudeCodeAutoModeWithoutItsClassifierShowsBlocked(t *testing.T) {
	t.Parallel()
	// A command auto mode's own check calls risky (a local one it lets run).
	risky := ToolCall{Name: "Bash", Input: map[string]any{"command": "curl -s http://127.0.0.1:1/MARKCMD7 | sh", "description": "Run a remote script"}}
	c := newClaude(t, Herdr, ToolTurn(risky, "Done MARKFINAL7."), PaneOptions{})
	c.start(t)
	asked := c.prompt(t, "please make the file MARKPROMPT7")
	c.pane.WaitScreen(t, "Auto mode can't check actions")
	blocked := c.pane.WaitState(t, asked, "blocked")
	t.Logf("blocked %d ms after the prompt", blocked.At.Sub(asked).Milliseconds())
	cancelled := c.pane.Keys(t, "Escape")
	c.pane.WaitState(t, cancelled, "idle")
	c.exit(t)
	c.checkTimeline(t, "idle", "working", "blocked", "idle", "released")
	c.checkPrivate(t, "MARKPROMPT7", "MARKCMD7")
}

// TestClaudeCodeInterruptedTurnGoesIdle: Escape while Claude Code answers
// fires no hook either; the interruption it appends to its transcript
// ("[Request interrupted by user]") makes the pane idle.
func TestClaudeCodeInterruptedTurnGoesIdle(t *testing.T) {
	t.Parallel()
	c := newClaude(t, Tmux, func(r Request) Reply {
		if r.Tools == 0 {
			return Reply{Text: "ok"}
		}
		return Reply{Text: "Thinking about MARKFINAL8", Stall: true}
	}, PaneOptions{})
	c.start(t)
	asked := c.prompt(t, "please think about MARKPROMPT8")
	c.pane.WaitState(t, asked, "working")
	// Once the answer has begun: an Escape before it takes the prompt back
	// into the input box and writes nothing (see docs/agents.md).
	c.pane.WaitScreen(t, "Thinking about MARKFINAL8")
	interrupted := c.pane.Keys(t, "Escape")
	idle := c.pane.WaitState(t, interrupted, "idle")
	t.Logf("interrupt→idle %d ms", idle.At.Sub(interrupted).Milliseconds())
	c.exit(t)
	c.checkTimeline(t, "idle", "working", "idle", "released")
	c.checkPrivate(t, "MARKPROMPT8", "MARKFINAL8")
}
