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
	"github.com/panestate/panestate/internal/hook"
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

// appendTo appends records to the file at path.
func appendTo(t *testing.T, path string, records ...[]byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range records {
		if _, err := f.Write(r); err != nil {
			t.Fatal(err)
		}
	}
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
	appendTo(t, transcript, records[6][:half])
	appendTo(t, transcript, records[6][half:])
	appendTo(t, transcript, records[7:]...)
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

func TestRejectWatchReadsOnlyCompleteRecordsAppendedAfterIt(t *testing.T) {
	rejection := []byte(`{"type":"gemini","toolCalls":[{"status":"cancelled"}]}` + "\n")
	path := filepath.Join(t.TempDir(), "t.jsonl")
	// A rejection written before the watch started is not this approval's.
	if err := os.WriteFile(path, rejection, 0o600); err != nil {
		t.Fatal(err)
	}
	w := followTranscript(hook.Gemini, path)
	if w == nil {
		t.Fatal("a plain file of mine is not followed")
	}
	defer w.close()
	if w.rejected() {
		t.Fatal("a record from before the watch is taken for a rejection")
	}
	appendTo(t, path, rejection[:10])
	if w.rejected() {
		t.Fatal("a record without its end is taken for a rejection")
	}
	appendTo(t, path, rejection[10:])
	if !w.rejected() {
		t.Fatal("the rejection, completed, is not seen")
	}
	// A record longer than maxRecord is skipped whole, the next one read.
	long := append([]byte(`{"type":"gemini","toolCalls":[{"status":"cancelled"}],"x":"`), bytes.Repeat([]byte("a"), maxRecord)...)
	appendTo(t, path, append(long, "\"}\n"...))
	if w.rejected() {
		t.Fatal("a record longer than maxRecord is read")
	}
	if len(w.line) != 0 || cap(w.line) > 2*maxRecord {
		t.Errorf("after a long record the watch holds %d bytes (capacity %d)", len(w.line), cap(w.line))
	}
	appendTo(t, path, []byte(`{"type":"info","content":"Request cancelled."}`+"\n"), rejection)
	if !w.rejected() {
		t.Fatal("the rejection after a long record is not seen")
	}
	// A transcript started over is read from its start.
	if err := os.WriteFile(path, rejection, 0o600); err != nil {
		t.Fatal(err)
	}
	if !w.rejected() {
		t.Fatal("the rejection in a transcript started over is not seen")
	}
}

func TestRejectWatchRefusesWhatIsNotAPlainFileOfMine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"a link":      link,
		"a directory": dir,
		"missing":     filepath.Join(dir, "missing.jsonl"),
		"a device":    os.DevNull,
	} {
		t.Run(name, func(t *testing.T) {
			if w := followTranscript(hook.Gemini, path); w != nil {
				w.close()
				t.Errorf("%s is followed", path)
			}
		})
	}
}
