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

// withTranscript writes the Gemini fixture name, its transcript_path set
// to transcript, to a file in dir and returns its path.
func withTranscript(t *testing.T, dir, name, transcript string) string {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal([]byte(readFile(t, fixture("gemini", name))), &p); err != nil {
		t.Fatal(err)
	}
	p["transcript_path"] = transcript
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
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
		a.hook(t, withTranscript(t, tmp, s.event, transcript))
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
	a.hook(t, withTranscript(t, tmp, "BeforeAgent", transcript))
	waitStatus(t, h, "the next prompt", herdrtest.StatusWorking)
	a.hook(t, withTranscript(t, tmp, "AfterAgent", transcript))
	waitStatus(t, h, "AfterAgent", herdrtest.StatusIdle)
	a.hook(t, withTranscript(t, tmp, "SessionEnd", transcript))
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
