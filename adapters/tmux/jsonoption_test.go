package tmux

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/session"
)

// TestJSONOption checks @panestate, the report as one JSON object, on a
// private tmux server: set in the same call as the three flat options,
// every field there, the session id once the registry hands it over, the
// time of the report, and unset by Release with the others.
func TestJSONOption(t *testing.T) {
	s := startServer(t, nil)
	pane := s.panes(t)[0]
	a := openT(t, params(s.paneEnv(pane), "", &diags{}))
	at := time.Date(2026, 12, 2, 17, 30, 5, 0, time.FixedZone("CET", 3600))
	a.now = func() time.Time { return at }
	read := func(step string) map[string]string {
		t.Helper()
		raw := strings.TrimSpace(s.run(t, "show-options", "-p", "-t", pane, "-v", "@panestate"))
		var m map[string]string
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatalf("%s: @panestate = %q: %v", step, raw, err)
		}
		return m
	}
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"state": "working", "message": "", "agent": "chat", "app": "chat", "session": "", "updated": "2026-12-02T16:30:05Z"}
	if diff := cmp.Diff(read("working"), want); diff != "" {
		t.Errorf("working: @panestate (-got +want):\n%s", diff)
	}
	id, err := session.Identity{ID: "e958b3ab-863e-4286-b7d4-fd06243b518a", Path: "/home/me/.claude/projects/x/e958b3ab.jsonl"}.WithResume("claude", "--resume", "e958b3ab")
	if err != nil {
		t.Fatal(err)
	}
	a.SetSession(id)
	at = at.Add(3 * time.Second)
	if err := a.Report(t.Context(), blocked); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"state": "blocked", "message": "Waiting for approval", "agent": "chat", "app": "chat",
		"session": "e958b3ab-863e-4286-b7d4-fd06243b518a", "updated": "2026-12-02T16:30:08Z"}
	if diff := cmp.Diff(read("blocked"), want); diff != "" {
		t.Errorf("blocked: @panestate (-got +want):\n%s", diff)
	}
	if got := strings.TrimSpace(s.run(t, "show-options", "-p", "-t", pane, "-v", "@panestate_state")); got != "blocked" {
		t.Errorf("the flat option beside it: %q", got)
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if out := s.run(t, "show-options", "-p", "-t", pane); strings.Contains(out, "@panestate") {
		t.Errorf("after Release the pane still has:\n%s", out)
	}
}
