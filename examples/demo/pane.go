package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// paneView is what `herdr agent get <pane>` says about the pane.
type paneView struct {
	Found  bool   // false: agent_not_found (no agent label on the pane)
	Agent  string // the agent label
	Status string // idle, working, blocked, done or unknown
}

// claimed reports whether the demo's reporter holds the pane.
func (v paneView) claimed() bool { return v.Found && v.Agent == app }

// shows reports whether the pane displays r. Herdr shows an idle report that
// follows a working one as "done" until the person looks at the pane.
func (v paneView) shows(r adapter.Report) bool {
	if !v.claimed() {
		return false
	}
	if r.State == adapter.StateIdle && v.Status == "done" {
		return true
	}
	return v.Status == r.State.String()
}

func (v paneView) String() string {
	switch {
	case !v.Found:
		return "(no agent)"
	case v.Agent != app:
		return fmt.Sprintf("(%s: %s)", v.Agent, v.Status)
	case v.Status == "done":
		return "done *"
	}
	return v.Status
}

// paneReader reads what Herdr shows for the pane.
type paneReader func(ctx context.Context) (paneView, error)

// emulatedPane reads the emulated server's state directly (no subprocess).
func emulatedPane(h *herdrtest.Herdr) paneReader {
	return func(context.Context) (paneView, error) {
		info, err := h.Agent(h.Pane)
		if err != nil {
			return paneView{}, err
		}
		return paneView{Found: info.Found, Agent: info.Agent, Status: string(info.AgentStatus)}, nil
	}
}

// agentGetTimeout bounds one `herdr agent get`.
const agentGetTimeout = 2 * time.Second

// realPane runs `$HERDR_BIN_PATH agent get $HERDR_PANE_ID`, as a person
// would, and reads the JSON line it prints.
func realPane(env []string) paneReader {
	e := adapter.Env(env)
	bin, pane := e.Get("HERDR_BIN_PATH"), e.Get("HERDR_PANE_ID")
	return func(ctx context.Context) (paneView, error) {
		if bin == "" || pane == "" {
			return paneView{}, errors.New("HERDR_BIN_PATH or HERDR_PANE_ID is not set")
		}
		ctx, cancel := context.WithTimeout(ctx, agentGetTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "agent", "get", pane)
		cmd.Env = env
		cmd.WaitDelay = agentGetTimeout
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			// A pane with no agent label answers agent_not_found, exit 1.
			var resp struct {
				Error *struct{ Code string } `json:"error"`
			}
			if json.Unmarshal(bytes.TrimSpace(stderr.Bytes()), &resp) == nil && resp.Error != nil && resp.Error.Code == "agent_not_found" {
				return paneView{}, nil
			}
			return paneView{}, fmt.Errorf("herdr agent get %s: %w (%s)", pane, err, adapter.Bound(stderr.String(), 200))
		}
		var resp struct {
			Result struct {
				Agent struct {
					Agent       string `json:"agent"`
					AgentStatus string `json:"agent_status"`
				} `json:"agent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
			return paneView{}, fmt.Errorf("herdr agent get %s: unexpected output: %w", pane, err)
		}
		a := resp.Result.Agent
		return paneView{Found: true, Agent: a.Agent, Status: a.AgentStatus}, nil
	}
}
