package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// geminiFixtures are the payloads Gemini CLI 0.61.0 sent its hooks, one
// per event and source or reason (testdata/gemini, captured against a mock
// model API; paths rewritten to /home/user, the prompt and the tool's
// command replaced by the marker), and the kind each one is.
var geminiFixtures = map[string]Kind{
	"SessionStart":        KindSessionStart, // source startup
	"SessionStart-resume": KindSessionStart,
	"SessionStart-clear":  KindSessionStart,
	"BeforeAgent":         KindTurnStart,
	"PreCompress":         KindIgnore, // fired before every model request, trigger auto
	"BeforeModel":         KindActivity,
	"BeforeToolSelection": KindActivity,
	"AfterModel":          KindActivity,
	"BeforeTool":          KindActivity,
	"Notification":        KindApproval, // ToolPermission
	"AfterTool":           KindActivity,
	"AfterAgent":          KindTurnEnd,
	"SessionEnd":          KindSessionEnd, // reason exit: /quit, Ctrl-C or Ctrl-D twice, SIGTERM, the end of -p
	"SessionEnd-clear":    KindSessionClear,
}

func TestParseMapsEveryRealGeminiPayload(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", string(Gemini), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	for name := range geminiFixtures {
		if !slices.Contains(names, name) {
			t.Errorf("fixture %s.json is missing", name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want, ok := geminiFixtures[name]
			if !ok {
				t.Fatalf("no kind given for fixture %s.json", name)
			}
			b := fixture(t, Gemini, name)
			e, err := Parse(Gemini, b)
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != want {
				t.Errorf("kind = %v, want %v", e.Kind, want)
			}
			var p struct {
				SessionID      string `json:"session_id"`
				TranscriptPath string `json:"transcript_path"`
			}
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			if e.Session != p.SessionID {
				t.Errorf("session = %q, want the payload's %q", e.Session, p.SessionID)
			}
			// Only an approval keeps the transcript, for the bridge.
			wantTranscript := ""
			if want == KindApproval {
				wantTranscript = p.TranscriptPath
			}
			if e.Transcript != wantTranscript {
				t.Errorf("transcript = %q, want %q", e.Transcript, wantTranscript)
			}
			out, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(out), marker) {
				t.Errorf("event %s carries a private field", out)
			}
		})
	}
}

func TestParseKeepsTheTranscriptOnlyOfAGeminiApprovalWithAPlainPath(t *testing.T) {
	payload := func(event, path string) []byte {
		b, err := json.Marshal(map[string]string{
			"hook_event_name": event, "session_id": "abc", "notification_type": "ToolPermission",
			"transcript_path": path,
		})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const good = "/home/user/.gemini/tmp/work/chats/session-1.jsonl"
	tests := []struct {
		name  string
		agent Agent
		event string
		path  string
		want  string
	}{
		{"a Gemini approval", Gemini, "Notification", good, good},
		{"a Gemini turn start", Gemini, "BeforeAgent", good, ""},
		{"a Claude Code approval", ClaudeCode, "PermissionRequest", good, ""},
		{"a relative path", Gemini, "Notification", "chats/session-1.jsonl", ""},
		{"a path that is not clean", Gemini, "Notification", "/home/user/../etc/passwd", ""},
		{"a control character", Gemini, "Notification", "/home/user/a\x1b]0;x\x07.jsonl", ""},
		{"too long", Gemini, "Notification", "/" + strings.Repeat("a", maxTranscript), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse(tt.agent, payload(tt.event, tt.path))
			if err != nil {
				t.Fatal(err)
			}
			if e.Transcript != tt.want {
				t.Errorf("transcript = %q, want %q", e.Transcript, tt.want)
			}
		})
	}
}

// transcriptRecords returns the records (lines) of a transcript fixture.
func transcriptRecords(t *testing.T, name string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", string(Gemini), name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// TestRejectedTellsTheRecordOfARejectedGeminiTool: in the transcript
// Gemini CLI 0.61.0 wrote for a turn whose tool the person rejected, one
// record (the model's message again, its tool call cancelled) is the
// rejection; in that of a turn whose tool ran, none is.
func TestRejectedTellsTheRecordOfARejectedGeminiTool(t *testing.T) {
	var rejected []int
	for i, r := range transcriptRecords(t, "transcript-rejected") {
		if Rejected(Gemini, r) {
			rejected = append(rejected, i+1)
		}
	}
	if !slices.Equal(rejected, []int{7}) {
		t.Errorf("rejections in transcript-rejected.jsonl on lines %v, want [7]", rejected)
	}
	for i, r := range transcriptRecords(t, "transcript-approved") {
		if Rejected(Gemini, r) {
			t.Errorf("transcript-approved.jsonl line %d is taken for a rejection", i+1)
		}
	}
}

func TestRejectedIsFalseForWhatIsNotAGeminiCancelledCall(t *testing.T) {
	cancelled := []byte(`{"type":"gemini","toolCalls":[{"status":"success"},{"status":"cancelled"}]}`)
	if !Rejected(Gemini, cancelled) {
		t.Fatal("a cancelled call among others is not a rejection")
	}
	for name, tt := range map[string]struct {
		agent  Agent
		record string
	}{
		"another agent":       {ClaudeCode, string(cancelled)},
		"a user record":       {Gemini, `{"type":"user","toolCalls":[{"status":"cancelled"}]}`},
		"a $set record":       {Gemini, `{"$set":{"messages":[{"type":"gemini","toolCalls":[{"status":"cancelled"}]}]}}`},
		"an errored call":     {Gemini, `{"type":"gemini","toolCalls":[{"status":"error"}]}`},
		"not JSON":            {Gemini, `{"type":"gemini","toolCalls":[{"status":"cancelled"}`},
		"a wrongly typed one": {Gemini, `{"type":"gemini","toolCalls":{"status":"cancelled"}}`},
	} {
		t.Run(name, func(t *testing.T) {
			if Rejected(tt.agent, []byte(tt.record)) {
				t.Errorf("%s is taken for a rejection", tt.record)
			}
		})
	}
}
