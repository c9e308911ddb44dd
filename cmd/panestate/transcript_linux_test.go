package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// withTranscript writes the claude-code fixture name with its
// transcript_path set to path, and returns the file written.
func withTranscript(t *testing.T, name, path string) string {
	t.Helper()
	b, err := os.ReadFile(fixture("claude-code", name))
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
	a.hook(t, withTranscript(t, "UserPromptSubmit", transcript))
	waitStatus(t, h, "UserPromptSubmit", herdrtest.StatusWorking)
	appendTo(t, transcript, claudeRecord(t, "assistant-tool-use"))
	a.hook(t, withTranscript(t, "PreToolUse", transcript))
	a.hook(t, withTranscript(t, "PermissionRequest", transcript))
	waitStatus(t, h, "PermissionRequest", herdrtest.StatusBlocked)
	appendTo(t, transcript, claudeRecord(t, "rejected-tool-result")+claudeRecord(t, "interrupted-for-tool-use"))
	waitStatus(t, h, "the rejection in the transcript", herdrtest.StatusIdle)
	a.hook(t, withTranscript(t, "UserPromptSubmit", transcript))
	waitStatus(t, h, "the next prompt", herdrtest.StatusWorking)
	a.hook(t, fixture("claude-code", "SessionEnd"))
	waitStatus(t, h, "SessionEnd", "")
}
