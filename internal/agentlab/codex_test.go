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

	"github.com/google/go-cmp/cmp"
)

// codexCase is one run of the real Codex in a workspace.
type codexCase struct {
	ws   Workspace
	opts CodexOptions
}

func (c codexCase) name() string {
	if c.opts.NoDaemon {
		return string(c.ws) + "/no-daemon"
	}
	return string(c.ws)
}

// startCodex prepares a home for Codex against a mock speaking script and
// a pane of ws for it.
func startCodex(t *testing.T, c codexCase, script Script) (*Pane, *Home, *ModelServer) {
	t.Helper()
	model := StartModel(t, OpenAI, script)
	home := NewHome(t)
	SetupCodex(t, home, model, c.opts)
	return StartPane(t, c.ws, home, PaneOptions{}), home, model
}

// noLeaks fails for every marker that reached the workspace (the Codex
// and Gemini CLI tests use it).
func noLeaks(t *testing.T, p *Pane, markers ...string) {
	t.Helper()
	for _, m := range markers {
		if leaks := p.Leaks(t, m); len(leaks) > 0 {
			t.Errorf("%s reached the workspace: %q", m, leaks)
		}
	}
}

// shown is what the pane showed, without a first idle: Codex sends
// SessionStart with the first prompt, about 0.15 s before
// UserPromptSubmit, and the registry may coalesce the two into working.
func shown(t *testing.T, p *Pane) []string {
	got := States(p.Timeline(t))
	if len(got) > 1 && got[0] == "idle" && got[1] == "working" {
		got = got[1:]
	}
	return got
}

// submit types a prompt into Codex's TUI and sends it, returning when.
func submit(t *testing.T, p *Pane, prompt string) time.Time {
	t.Helper()
	p.Type(t, prompt)
	p.WaitScreen(t, prompt)
	return p.Keys(t, "Enter")
}

func TestCodexHeadlessTurnWithATool(t *testing.T) {
	bin := Binary(t, Codex)
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			p, home, model := startCodex(t, codexCase{ws: ws},
				ToolTurn(CodexCommand("echo done > out-MARKCMD1.txt", false), "Done MARKFINAL1."))
			p.Run(t, nil, bin, "exec", "--skip-git-repo-check", "--sandbox", "danger-full-access", "please make the file MARKPROMPT1")
			if code := p.WaitExit(t); code != 0 {
				t.Fatalf("codex exec exited %d:\n%s", code, p.Screen(t))
			}
			p.WaitState(t, p.Started, "")
			if _, err := os.Stat(filepath.Join(home.Work, "out-MARKCMD1.txt")); err != nil {
				t.Errorf("the tool did not run: %v\n%s", err, p.Screen(t))
			}
			if strings.Contains(p.Screen(t), "--dangerously-bypass-hook-trust") || !strings.Contains(p.Screen(t), "hook: Stop Completed") {
				t.Errorf("codex exec did not run the hooks that install trusted:\n%s", p.Screen(t))
			}
			if n := len(model.Requests()); n != 2 {
				t.Errorf("%d model requests, want 2 (the call, then the answer to its result)", n)
			}
			checkHeadless(t, p)
			t.Logf("%s: %s", ws, p.Describe(t))
			noLeaks(t, p, "MARKPROMPT1", "MARKCMD1", "MARKFINAL1")
		})
	}
}

// TestCodexInteractiveApproveRejectQuit: in the TUI, a command that asks
// for approval shows blocked (after hook.CodexPermissionGrace: Codex fires
// PermissionRequest also when its auto-review will answer); approved, the
// turn goes on to idle; rejected, Codex fires Interrupt and the pane goes
// to idle at once; /quit releases the pane, also when the session runs in
// Codex's app-server daemon, which works on without the TUI and fires no
// SessionEnd.
func TestCodexInteractiveApproveRejectQuit(t *testing.T) {
	bin := Binary(t, Codex)
	for _, c := range []codexCase{{ws: Herdr}, {ws: Tmux}, {ws: Herdr, opts: CodexOptions{NoDaemon: true}}} {
		t.Run(c.name(), func(t *testing.T) {
			t.Parallel()
			script := func(r Request) Reply {
				switch {
				case len(r.Results) > 0:
					// As ToolTurn: a tool's result answered at once puts the
					// working after an approval and the turn's end inside one
					// 50 ms throttle window on a loaded machine (.ci/run saw
					// blocked, idle).
					time.Sleep(300 * time.Millisecond)
					return Reply{Text: "Finished MARKFINAL2."}
				case r.Tools == 0:
					return Reply{Text: "Finished MARKFINAL2."}
				case strings.Contains(r.Prompt, "approve"):
					return Reply{Tool: &ToolCall{Name: "exec_command", Input: CodexCommand("echo ok > out-MARKCMD2.txt", true).Input}}
				default:
					return Reply{Tool: &ToolCall{Name: "exec_command", Input: CodexCommand("echo no > out-MARKCMD3.txt", true).Input}}
				}
			}
			p, home, _ := startCodex(t, c, script)
			p.Run(t, nil, bin)
			p.WaitScreen(t, "OpenAI Codex")
			if s := p.Screen(t); strings.Contains(s, "Hooks need review") {
				t.Fatalf("Codex asks to review the hooks install trusted:\n%s", s)
			}

			sent := submit(t, p, "please approve MARKPROMPT2")
			working := p.WaitState(t, sent, "working")
			blocked := p.WaitState(t, working.At, "blocked")
			p.WaitScreen(t, "Would you like to run")
			approved := p.Keys(t, "Enter")
			afterApproval := p.WaitState(t, approved, "idle")
			if _, err := os.Stat(filepath.Join(home.Work, "out-MARKCMD2.txt")); err != nil {
				t.Errorf("the approved command did not run: %v", err)
			}
			if n := len(CodexDaemons(home)); n == 0 != c.opts.NoDaemon {
				t.Errorf("%d app-server daemons run the session, NoDaemon %v", n, c.opts.NoDaemon)
			}

			sent2 := submit(t, p, "please reject MARKPROMPT3")
			blocked2 := p.WaitState(t, sent2, "blocked")
			p.WaitScreen(t, "Would you like to run")
			rejected := p.Keys(t, "Escape")
			idle := p.WaitState(t, rejected, "idle")
			p.WaitScreen(t, "Conversation interrupted")
			if _, err := os.Stat(filepath.Join(home.Work, "out-MARKCMD3.txt")); err == nil {
				t.Error("the rejected command ran")
			}

			quit := submit(t, p, "/quit")
			if code := p.WaitExit(t); code != 0 {
				t.Errorf("codex exited %d:\n%s", code, p.Screen(t))
			}
			released := p.WaitState(t, quit, "")
			t.Logf("%s: prompt→working %v, →blocked %v (grace), approve→idle %v; reject: prompt→blocked %v, reject→idle %v; /quit→released %v; timeline: %s",
				c.name(), working.At.Sub(sent).Round(time.Millisecond), blocked.At.Sub(working.At).Round(time.Millisecond),
				afterApproval.At.Sub(approved).Round(time.Millisecond), blocked2.At.Sub(sent2).Round(time.Millisecond),
				idle.At.Sub(rejected).Round(time.Millisecond), released.At.Sub(quit).Round(time.Millisecond), p.Describe(t))
			if d := idle.At.Sub(rejected); d > time.Second {
				t.Errorf("reject→idle took %v, want within 1 s", d)
			}
			want := []string{"working", "blocked", "working", "idle", "working", "blocked", "idle", "released"}
			if diff := cmp.Diff(shown(t, p), want); diff != "" {
				t.Errorf("the pane showed (-got +want):\n%s\ntimeline: %s", diff, p.Describe(t))
			}
			noLeaks(t, p, "MARKPROMPT2", "MARKPROMPT3", "MARKCMD2", "MARKCMD3", "MARKFINAL2")
		})
	}
}

// TestCodexKilledMidTurnReleasesThePane: the Codex process in the pane
// killed while the model still streams its answer releases the pane, also
// when its session runs on in Codex's app-server daemon.
func TestCodexKilledMidTurnReleasesThePane(t *testing.T) {
	bin := Binary(t, Codex)
	for _, ws := range Workspaces {
		t.Run(string(ws), func(t *testing.T) {
			t.Parallel()
			p, _, _ := startCodex(t, codexCase{ws: ws}, func(Request) Reply { return Reply{Stall: true} })
			p.Run(t, nil, bin)
			p.WaitScreen(t, "OpenAI Codex")
			sent := submit(t, p, "think long MARKPROMPT4")
			p.WaitState(t, sent, "working")
			pid := p.CodexProcess(t)
			killed := time.Now()
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			released := p.WaitState(t, killed, "")
			t.Logf("%s: SIGKILL→released %v; timeline: %s", ws, released.At.Sub(killed).Round(time.Millisecond), p.Describe(t))
			if got := shown(t, p); !slices.Equal(got, []string{"working", "released"}) {
				t.Errorf("the pane showed %q, want working, released; timeline: %s", got, p.Describe(t))
			}
			noLeaks(t, p, "MARKPROMPT4")
		})
	}
}

// TestCodexResumeCommandResumesTheSession: the resume command the pane
// got (Herdr carries it) is `codex resume <session id>`, and run against
// the mock it resumes that very session: Codex sends the earlier turn
// with the next prompt, and the pane gets the same command again.
func TestCodexResumeCommandResumesTheSession(t *testing.T) {
	bin := Binary(t, Codex)
	// The model takes 300 ms over each turn, as a real one would: answered
	// at once, a turn's working lasts less than the registry's 50 ms
	// throttle window, which merges it into the idle around it.
	slow := func(r Request) Reply {
		if r.Tools > 0 {
			time.Sleep(300 * time.Millisecond)
		}
		return Reply{Text: "Noted."}
	}
	p, _, model := startCodex(t, codexCase{ws: Herdr}, slow)
	p.Run(t, nil, bin)
	p.WaitScreen(t, "OpenAI Codex")
	p.WaitState(t, p.WaitState(t, submit(t, p, "remember MARKPROMPT5"), "working").At, "idle")
	argv, ok := p.Herdr.ResumeArgv(p.Herdr.Pane)
	if !ok || len(argv) != 3 || argv[0] != "codex" || argv[1] != "resume" {
		t.Fatalf("resume command %q, %v; want codex resume <id>", argv, ok)
	}
	quit := submit(t, p, "/quit")
	p.WaitExit(t)
	p.WaitState(t, quit, "")
	if !strings.Contains(p.Screen(t), "codex resume "+argv[2]) {
		t.Errorf("Codex's own parting words do not name the same command:\n%s", p.Screen(t))
	}

	p.Run(t, nil, append([]string{bin}, argv[1:]...)...)
	p.WaitScreen(t, "remember MARKPROMPT5") // the resumed history
	before := len(model.Requests())
	p.WaitState(t, p.WaitState(t, submit(t, p, "and now MARKPROMPT6"), "working").At, "idle")
	// The turn's request (Codex also asks, without tools, for a title).
	i := slices.IndexFunc(model.Requests()[before:], func(r Request) bool { return r.Tools > 0 && strings.Contains(r.Prompt, "MARKPROMPT6") })
	if i < 0 || !strings.Contains(string(model.Requests()[before+i].Raw), "remember MARKPROMPT5") {
		t.Errorf("the resumed session's request does not carry the earlier turn")
	}
	if again, _ := p.Herdr.ResumeArgv(p.Herdr.Pane); !slices.Equal(again, argv) {
		t.Errorf("resume command after resuming: %q, want %q", again, argv)
	}
	t.Logf("timeline: %s", p.Describe(t))
	noLeaks(t, p, "MARKPROMPT5", "MARKPROMPT6")
}

// TestCodexAutoReviewedApprovalDoesNotBlock: with --approve-for-me Codex's
// auto-review answers the approval; PermissionRequest still fires (before
// the review), and the pane does not show blocked for a review answered
// within hook.CodexPermissionGrace.
func TestCodexAutoReviewedApprovalDoesNotBlock(t *testing.T) {
	bin := Binary(t, Codex)
	script := func(r Request) Reply {
		switch {
		case strings.HasPrefix(r.Prompt, "The following is the Codex agent history"): // the reviewer
			return Reply{Text: `{"risk_level":"low","risk_score":1,"user_authorization":"high","outcome":"allow","rationale":"The user asked for it.","evidence":[]}`}
		case strings.HasPrefix(r.Prompt, "please make") && len(r.Results) == 0:
			return Reply{Tool: &ToolCall{Name: "exec_command", Input: CodexCommand("echo ok > out-MARKCMD7.txt", true).Input}}
		default:
			return Reply{Text: "Done."}
		}
	}
	p, home, model := startCodex(t, codexCase{ws: Herdr}, script)
	p.Run(t, nil, bin, "exec", "--skip-git-repo-check", "--approve-for-me", "please make the file MARKPROMPT7")
	if code := p.WaitExit(t); code != 0 {
		t.Fatalf("codex exec exited %d:\n%s", code, p.Screen(t))
	}
	p.WaitState(t, p.Started, "")
	if _, err := os.Stat(filepath.Join(home.Work, "out-MARKCMD7.txt")); err != nil {
		t.Errorf("the reviewed command did not run: %v", err)
	}
	if !slices.ContainsFunc(model.Requests(), func(r Request) bool { return strings.HasPrefix(r.Prompt, "The following is the Codex agent history") }) ||
		!strings.Contains(p.Screen(t), "hook: PermissionRequest Completed") {
		t.Fatalf("no auto-review, or no PermissionRequest hook:\n%s", p.Screen(t))
	}
	if got := States(p.Timeline(t)); slices.Contains(got, "blocked") {
		t.Errorf("an auto-reviewed approval showed blocked: %q", got)
	}
	t.Logf("timeline: %s", p.Describe(t))
	noLeaks(t, p, "MARKPROMPT7", "MARKCMD7")
}
