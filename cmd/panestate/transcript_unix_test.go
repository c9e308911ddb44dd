//go:build linux || darwin

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/panestate/panestate/internal/hook"
)

// claudeRecord is a Claude Code 2.1.328 transcript record (internal/hook's
// testdata), with its newline.
func claudeRecord(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "hook", "testdata", "claude-code", "transcript", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// appendTo appends s to the file at path.
func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestTranscriptScanReadsOnlyWhatFollowsTheHook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	// A rejection from an earlier turn, before the hook ran: not this one's.
	appendTo(t, path, claudeRecord(t, "prompt")+claudeRecord(t, "interrupted-for-tool-use"))
	var tr transcript
	tr.follow(hook.Event{Agent: hook.ClaudeCode, Transcript: path, Offset: transcriptSize(path)})
	if k := tr.scan(); k != hook.KindIgnore {
		t.Fatalf("before anything was appended: %v", k)
	}
	appendTo(t, path, claudeRecord(t, "assistant-tool-use"))
	if k := tr.scan(); k != hook.KindIgnore {
		t.Errorf("after the tool use: %v, want ignore", k)
	}
	appendTo(t, path, claudeRecord(t, "rejected-tool-result")+claudeRecord(t, "interrupted-for-tool-use"))
	if k := tr.scan(); k != hook.KindTurnEnd {
		t.Errorf("after the rejection: %v, want turn_end", k)
	}
	if k := tr.scan(); k != hook.KindIgnore {
		t.Errorf("the rejection read twice: %v", k)
	}
}

func TestTranscriptScanWaitsForAWholeRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, path, "")
	var tr transcript
	tr.follow(hook.Event{Agent: hook.ClaudeCode, Transcript: path})
	rec := claudeRecord(t, "interrupted")
	appendTo(t, path, rec[:40])
	if k := tr.scan(); k != hook.KindIgnore {
		t.Fatalf("half a record: %v", k)
	}
	appendTo(t, path, rec[40:])
	if k := tr.scan(); k != hook.KindTurnEnd {
		t.Errorf("the whole record: %v, want turn_end", k)
	}
}

func TestTranscriptScanSkipsLongRecordsUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, path, "")
	var tr transcript
	tr.follow(hook.Event{Agent: hook.ClaudeCode, Transcript: path})
	// A long record that would read as an interruption, written in two
	// parts: skipped whole.
	long := strings.TrimSuffix(claudeRecord(t, "interrupted"), "}\n") + `,"pad":"` + strings.Repeat("x", hook.MaxRecord) + "\"}\n"
	appendTo(t, path, long[:hook.MaxRecord+100])
	if k := tr.scan(); k != hook.KindIgnore {
		t.Fatalf("the long record's start: %v", k)
	}
	appendTo(t, path, long[hook.MaxRecord+100:])
	if k := tr.scan(); k != hook.KindIgnore {
		t.Errorf("the long record's end: %v", k)
	}
	appendTo(t, path, claudeRecord(t, "interrupted"))
	if k := tr.scan(); k != hook.KindTurnEnd {
		t.Errorf("the record after it: %v, want turn_end", k)
	}
}

func TestTranscriptScanBoundsItsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, path, "")
	var tr transcript
	tr.follow(hook.Event{Agent: hook.ClaudeCode, Transcript: path})
	line := claudeRecord(t, "attachment")
	appendTo(t, path, strings.Repeat(line, 2*maxScan/len(line))+claudeRecord(t, "interrupted"))
	if k := tr.scan(); k != hook.KindIgnore || tr.pos > maxScan {
		t.Fatalf("first scan: %v at %d, want ignore within %d bytes", k, tr.pos, maxScan)
	}
	var k hook.Kind
	for range 3 {
		if k = tr.scan(); k != hook.KindIgnore {
			break
		}
	}
	if k != hook.KindTurnEnd {
		t.Errorf("later scans: %v, want turn_end", k)
	}
}

func TestTranscriptScanAfterTruncation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, path, claudeRecord(t, "prompt")+claudeRecord(t, "attachment"))
	var tr transcript
	tr.follow(hook.Event{Agent: hook.ClaudeCode, Transcript: path, Offset: transcriptSize(path)})
	if err := os.WriteFile(path, []byte(claudeRecord(t, "interrupted")[:10]), 0o600); err != nil {
		t.Fatal(err)
	}
	if k := tr.scan(); k != hook.KindIgnore {
		t.Fatalf("truncated: %v", k)
	}
	appendTo(t, path, "\n"+claudeRecord(t, "interrupted"))
	if k := tr.scan(); k != hook.KindTurnEnd {
		t.Errorf("after the truncation: %v, want turn_end", k)
	}
}

func TestTranscriptRefusesWhatIsNotAPlainFileOfMine(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.jsonl")
	appendTo(t, real, claudeRecord(t, "interrupted"))
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, fifo, dir} {
		if n := transcriptSize(p); n != -1 {
			t.Errorf("transcriptSize(%s) = %d, want -1", filepath.Base(p), n)
		}
		tr := transcript{agent: hook.ClaudeCode, path: p}
		if k := tr.scan(); k != hook.KindIgnore {
			t.Errorf("scan(%s) = %v, want ignore", filepath.Base(p), k)
		}
	}
}

// TestTranscriptFollowedBeforeItExists: the first prompt's hook can run
// before Claude Code makes the transcript; it is read from its start once
// it is there.
func TestTranscriptFollowedBeforeItExists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if n := transcriptSize(path); n != 0 {
		t.Fatalf("transcriptSize of a missing file = %d, want 0", n)
	}
	var tr transcript
	tr.follow(hook.Event{Agent: hook.ClaudeCode, Transcript: path, Offset: 0})
	if k := tr.scan(); k != hook.KindIgnore {
		t.Fatalf("no file yet: %v", k)
	}
	appendTo(t, path, claudeRecord(t, "prompt")+claudeRecord(t, "interrupted"))
	if k := tr.scan(); k != hook.KindTurnEnd {
		t.Errorf("once made: %v, want turn_end", k)
	}
}
