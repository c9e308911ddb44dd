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
	"SessionStart":           KindSessionStart, // source startup
	"SessionStart-resume":    KindSessionStart,
	"SessionStart-clear":     KindSessionStart,
	"BeforeAgent":            KindTurnStart,
	"PreCompress":            KindIgnore, // fired before every model request, trigger auto
	"BeforeModel":            KindActivity,
	"BeforeToolSelection":    KindActivity,
	"AfterModel":             KindActivity,
	"BeforeTool":             KindActivity,
	"Notification":           KindApproval, // ToolPermission
	"AfterTool":              KindActivity,
	"AfterAgent":             KindTurnEnd,
	"AfterAgent-interrupted": KindTurnEnd,    // Escape while the model streams: prompt_response "[no response text]"
	"SessionEnd":             KindSessionEnd, // reason exit: /quit, Ctrl-C or Ctrl-D twice, SIGTERM, the end of -p
	"SessionEnd-clear":       KindSessionClear,
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
			// The events of a turn keep the transcript, for the bridge.
			wantTranscript := ""
			if inTurn(want) {
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

// transcriptRecords returns the records (lines) of a transcript fixture.
func transcriptRecords(t *testing.T, name string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", string(Gemini), name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// TestTranscriptKindTellsTheRecordOfARejectedGeminiTool: in the transcript
// Gemini CLI 0.61.0 wrote for a turn whose tool the person rejected, one
// record (the model's message again, its tool call cancelled) is the
// rejection; in that of a turn whose tool ran, none is.
func TestTranscriptKindTellsTheRecordOfARejectedGeminiTool(t *testing.T) {
	var rejected []int
	for i, r := range transcriptRecords(t, "transcript-rejected") {
		if TranscriptKind(Gemini, r) == KindTurnEnd {
			rejected = append(rejected, i+1)
		}
	}
	if !slices.Equal(rejected, []int{7}) {
		t.Errorf("rejections in transcript-rejected.jsonl on lines %v, want [7]", rejected)
	}
	for i, r := range transcriptRecords(t, "transcript-approved") {
		if k := TranscriptKind(Gemini, r); k != KindIgnore {
			t.Errorf("transcript-approved.jsonl line %d means %v, want ignore", i+1, k)
		}
	}
}

func TestTranscriptKindIgnoresWhatIsNotAGeminiCancelledCall(t *testing.T) {
	cancelled := []byte(`{"type":"gemini","toolCalls":[{"status":"success"},{"status":"cancelled"}]}`)
	if k := TranscriptKind(Gemini, cancelled); k != KindTurnEnd {
		t.Fatalf("a cancelled call among others means %v, want turn_end", k)
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
			if k := TranscriptKind(tt.agent, []byte(tt.record)); k != KindIgnore {
				t.Errorf("%.80s means %v, want ignore", tt.record, k)
			}
		})
	}
}
