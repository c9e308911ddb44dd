package agentlab

import (
	"encoding/json"
	"testing"
)

// claudeKey is the API key Claude Code gets: a made-up one, which the
// fake home approves so that Claude Code does not ask.
const claudeKey = "sk-ant-api03-agentlab-000000000000-0123456789abcdefghij"

// SetupClaude prepares home for Claude Code talking to model (an
// [Anthropic] server): ~/.claude.json says onboarding is done, the key
// ends in an approved suffix (customApiKeyResponses) and the work
// directory is trusted (hasTrustDialogAccepted), so that no dialog comes
// before the prompt; ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY point it at
// the mock; DISABLE_AUTOUPDATER and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC
// keep it off the network. Then `panestate install claude-code` adds the
// hooks to ~/.claude/settings.json, as a user would.
func SetupClaude(t testing.TB, home *Home, model *ModelServer) {
	t.Helper()
	state := map[string]any{
		"hasCompletedOnboarding": true,
		"theme":                  "dark",
		"customApiKeyResponses":  map[string]any{"approved": []string{claudeKey[len(claudeKey)-20:]}, "rejected": []string{}},
		"projects": map[string]any{home.Work: map[string]any{
			"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []string{},
		}},
	}
	b, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	home.WriteFile(t, ".claude.json", b)
	home.Setenv(
		"ANTHROPIC_BASE_URL="+model.URL,
		"ANTHROPIC_API_KEY="+claudeKey,
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	)
	home.Install(t, "claude-code")
}
