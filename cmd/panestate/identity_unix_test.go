//go:build linux || darwin

package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/hook"
)

// TestIdentityResumesEachAgentsSession: the identity sent for a session
// holds its id and the command that resumes it, in each agent's syntax.
func TestIdentityResumesEachAgentsSession(t *testing.T) {
	tests := []struct {
		agent      hook.Agent
		id         string
		wantResume []string
	}{
		{agent: hook.ClaudeCode, id: "abc-123", wantResume: []string{"claude", "--resume", "abc-123"}},
		{agent: hook.Codex, id: "019a-77", wantResume: []string{"codex", "resume", "019a-77"}},
		{agent: hook.Gemini, id: "c0ffee", wantResume: []string{"gemini", "--resume", "c0ffee"}},
		{agent: hook.Gemini, id: ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.agent)+" "+tt.id, func(t *testing.T) {
			got := identity(tt.agent, tt.id)
			if got.ID != tt.id {
				t.Errorf("id %q, want %q", got.ID, tt.id)
			}
			if diff := cmp.Diff(got.Resume(), tt.wantResume); diff != "" {
				t.Errorf("resume (-got +want):\n%s", diff)
			}
		})
	}
}
