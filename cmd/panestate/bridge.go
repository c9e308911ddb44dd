//go:build linux || darwin

package main

import (
	"time"

	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/session"
)

// idleLimit ends a bridge that has heard from no hook for this long, even
// when its agent still runs: the pane is released, and the agent's next
// hook starts a new bridge. PANESTATE_IDLE_LIMIT (a Go duration, in the
// environment of the agent that starts the bridge) changes it.
const idleLimit = 12 * time.Hour

// idleLimitEnv names the variable that sets the idle limit.
const idleLimitEnv = "PANESTATE_IDLE_LIMIT"

// idleLimitOf returns the idle limit env sets, or idleLimit.
func idleLimitOf(env []string) time.Duration {
	d, err := time.ParseDuration(lookup(env, idleLimitEnv))
	if err != nil || d <= 0 {
		return idleLimit
	}
	return d
}

// watchInterval is how often the bridge checks that its agent still runs.
const watchInterval = 100 * time.Millisecond

// promptID is the id of the one prompt the bridge opens in its store.
const promptID = "hook"

// show makes store say what p says. The calls are ordered so that no
// intermediate snapshot shows another state.
func show(store *session.Store, agent hook.Agent, last *string, p hook.Pane) {
	if p.Session != *last {
		*last = p.Session
		store.SetIdentity(identity(agent, p.Session))
	}
	switch p.State {
	case hook.StateIdle:
		store.AgentSettled()
		store.PromptEnd(promptID)
	case hook.StateWorking:
		store.AgentStart()
		store.PromptEnd(promptID)
	case hook.StateApproval:
		store.AgentStart()
		store.PromptStart(promptID, session.PromptApproval)
	case hook.StateQuestion:
		store.AgentStart()
		store.PromptStart(promptID, session.PromptInput)
	}
}

// identity is the session identity of id: the id and the command that
// resumes it (hook.Resume). The transcript path is never sent.
func identity(agent hook.Agent, id string) session.Identity {
	if id == "" {
		return session.Identity{}
	}
	ident := session.Identity{ID: id}
	if withResume, err := ident.WithResume(hook.Resume(agent, id)...); err == nil {
		ident = withResume
	}
	return ident
}
