package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSubagentsAsChildRecordsFromHooks runs a Claude Code session whose
// hooks report a subagent (payloads with agent_id), inside GNU screen
// (where Claude Code's probe goes unanswered and progstatus.enabled
// applies), from a stand-in agent on a pty: the subagent is a child record
// under the bridge's (id=panestate/agent-7, inheriting app panestate); the
// parent works on after its turn ended while the subagent works, is blocked
// (not idle) while the subagent waits for approval, and is done once it
// finished, whose record is cleared.
func TestSubagentsAsChildRecordsFromHooks(t *testing.T) {
	bin := buildPanestate(t)
	const (
		child        = "7501;state=working:id=panestate/agent-7"
		childBlocked = "7501;state=blocked:id=panestate/agent-7:kind=permission:msg=V2FpdGluZyBmb3IgYXBwcm92YWw="
		childClear   = "7501;state=clear:id=panestate/agent-7"
	)
	steps := []ttyStep{
		{"SessionStart", []string{psIdle}},
		{"UserPromptSubmit", []string{psWorking}},
		{"subagent-SubagentStart", []string{child}},
		{"Stop", nil}, // the subagent works on: so does the pane
		{"subagent-PermissionRequest", []string{psBlocked, childBlocked}},
		{"PreToolUse-subagent", []string{psWorking, child}},
		{"subagent-SubagentStop", []string{psDone, childClear}},
		{"SessionEnd", []string{psClear}},
	}
	dir, rt := runtimeEnv(t)
	env := append(ttyEnv(t, rt, map[string]string{"settings.json": `{"progstatus": {"enabled": true}}`}), "STY=4242.pts-1.host")
	a, s := startAgentTTY(t, bin, "claude-code", env)
	var want []string
	pid := 0
	for _, st := range steps {
		a.hook(t, fixture("claude-code", st.event))
		if pid == 0 {
			pid = bridgeIn(t, bin, dir)
		}
		want = append(want, st.adds...)
		s.wait(t, st.event, len(want))
	}
	waitExit(t, pid)
	if diff := cmp.Diff(s.sequences(), want); diff != "" {
		t.Errorf("sequences on the agent's terminal (-got +want):\n%s", diff)
	}
	checkScreen(t, s)
}
