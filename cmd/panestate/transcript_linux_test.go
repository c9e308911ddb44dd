package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// withTranscript writes agent's fixture name with its transcript_path set
// to path, and returns the file written.
func withTranscript(t *testing.T, agent, name, path string) string {
	t.Helper()
	b, err := os.ReadFile(fixture(agent, name))
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	p["transcript_path"] = path
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), name+".json")
	if err := os.WriteFile(f, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRejectionInTheTranscriptEndsTheTurn: after a PermissionRequest no
// hook reports the rejection; the records Claude Code then appends to the
// transcript the hooks named make the pane idle.
func TestRejectionInTheTranscriptEndsTheTurn(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{Version: herdrtest.Version093, InView: []string{"w1:p1"}})
	_, rt := runtimeEnv(t)
	a := startAgent(t, bin, "claude-code", append(h.PaneEnv(t.TempDir()), rt...))
	transcript := filepath.Join(t.TempDir(), "session.jsonl")
	appendTo(t, transcript, claudeRecord(t, "prompt"))

	a.hook(t, fixture("claude-code", "SessionStart"))
	waitStatus(t, h, "SessionStart", herdrtest.StatusIdle)
	a.hook(t, withTranscript(t, "claude-code", "UserPromptSubmit", transcript))
	waitStatus(t, h, "UserPromptSubmit", herdrtest.StatusWorking)
	appendTo(t, transcript, claudeRecord(t, "assistant-tool-use"))
	a.hook(t, withTranscript(t, "claude-code", "PreToolUse", transcript))
	a.hook(t, withTranscript(t, "claude-code", "PermissionRequest", transcript))
	waitStatus(t, h, "PermissionRequest", herdrtest.StatusBlocked)
	appendTo(t, transcript, claudeRecord(t, "rejected-tool-result")+claudeRecord(t, "interrupted-for-tool-use"))
	waitStatus(t, h, "the rejection in the transcript", herdrtest.StatusIdle)
	a.hook(t, withTranscript(t, "claude-code", "UserPromptSubmit", transcript))
	waitStatus(t, h, "the next prompt", herdrtest.StatusWorking)
	a.hook(t, fixture("claude-code", "SessionEnd"))
	waitStatus(t, h, "SessionEnd", "")
}

// geminiTranscript returns the records of a transcript Gemini CLI 0.61.0
// wrote (internal/hook/testdata/gemini/<name>.jsonl), one line each with
// its newline.
func geminiTranscript(t *testing.T, name string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "hook", "testdata", "gemini", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	return lines[:len(lines)-1]
}

// TestGeminiRejectedToolTurnsTheBlockedPaneIdle: Gemini CLI fires no hook
// when the person rejects a tool; the pane, blocked since the
// ToolPermission notification, turns idle once the agent appends the
// rejection to its transcript, and nothing of the transcript reaches
// Herdr.
func TestGeminiRejectedToolTurnsTheBlockedPaneIdle(t *testing.T) {
	bin := buildPanestate(t)
	h := herdrtest.StartT(t, herdrtest.Options{InView: []string{"w1:p1"}})
	dir, rt := runtimeEnv(t)
	a := startAgent(t, bin, "gemini", append(h.PaneEnv(t.TempDir()), rt...))
	records := geminiTranscript(t, "transcript-rejected")
	tmp := t.TempDir()
	transcript := filepath.Join(tmp, "session.jsonl")
	if err := os.WriteFile(transcript, bytes.Join(records[:6], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, s := range []hookStep{
		{"SessionStart", herdrtest.StatusIdle},
		{"BeforeAgent", herdrtest.StatusWorking},
		{"BeforeTool", herdrtest.StatusWorking},
		{"Notification", herdrtest.StatusBlocked},
	} {
		a.hook(t, withTranscript(t, "gemini", s.event, transcript))
		waitStatus(t, h, s.event, s.want)
	}
	pid := bridgePID(t, dir)
	// The rejection, written in two parts as a slow writer might.
	half := len(records[6]) / 2
	appendTo(t, transcript, string(records[6][:half]))
	appendTo(t, transcript, string(records[6][half:]))
	appendTo(t, transcript, string(bytes.Join(records[7:], nil)))
	waitStatus(t, h, "the rejection in the transcript", herdrtest.StatusIdle)

	// The next turn is followed as before.
	a.hook(t, withTranscript(t, "gemini", "BeforeAgent", transcript))
	waitStatus(t, h, "the next prompt", herdrtest.StatusWorking)
	a.hook(t, withTranscript(t, "gemini", "AfterAgent", transcript))
	waitStatus(t, h, "AfterAgent", herdrtest.StatusIdle)
	a.hook(t, withTranscript(t, "gemini", "SessionEnd", transcript))
	waitStatus(t, h, "SessionEnd", "")
	waitExit(t, pid)
	want := []string{"idle", "working", "blocked", "idle", "working", "idle", "released"}
	if diff := cmp.Diff(reportedStates(t, h), want); diff != "" {
		t.Errorf("states reported (-got +want):\n%s", diff)
	}
	calls, err := h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	checkPrivate(t, calls)
	for _, c := range calls {
		if b, _ := json.Marshal(c); strings.Contains(string(b)+string(c.Params), tmp) {
			t.Errorf("a request to Herdr names the transcript: %s", b)
		}
	}
}
