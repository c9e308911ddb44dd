package progstatus

import (
	"fmt"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/progstatus/probe"
)

// readsFromPanes names the workspace the agent runs in when it is one
// that reads OSC 7501 from each of its panes itself, rather than passing
// it on to the terminal it runs in: zellij (its Inbox, from the zellij
// documentation's "inbox integrations" page; ZELLIJ or
// ZELLIJ_SESSION_NAME set in its panes) and Herdr 2 (herdr-core, whose
// terminals carry HC_TERMINAL_ID; that it reads OSC 7501 is claimed, not
// shown). Neither could be run here: the rules are those their
// documentation and the claims state.
//
// Inside tmux or GNU screen (TMUX, STY), even one running in such a
// workspace, their rules apply: the agent's pane is theirs.
func readsFromPanes(env adapter.Env) (string, bool) {
	switch {
	case env.Get("TMUX") != "" || env.Get("STY") != "":
		return "", false
	case env.Get("HC_TERMINAL_ID") != "":
		return "a Herdr 2 terminal (HC_TERMINAL_ID is set)", true
	case env.Get("ZELLIJ") != "" || env.Get("ZELLIJ_SESSION_NAME") != "":
		return "zellij (ZELLIJ or ZELLIJ_SESSION_NAME is set)", true
	}
	return "", false
}

// paneReader decides inside a workspace that reads OSC 7501 from its
// panes: the sequence goes to the pane as it is (no wrapping: the
// workspace reads it, it does not forward it), and the adapter runs where
// the probe was answered or the person set progstatus.enabled; an
// unanswered probe, or none, leaves it off, since whether the workspace
// answers the query is not known.
func paneReader(p adapter.Params, where string) (how, error) {
	inactive := func(format string, args ...any) (how, error) {
		return how{}, fmt.Errorf("progstatus: %w: inside %s: "+format, append([]any{adapter.ErrInactive, where}, args...)...)
	}
	if p.Env.Get("TERM") == "dumb" {
		return inactive("TERM is dumb")
	}
	if p.Forced {
		return how{why: "progstatus.enabled is true, inside " + where}, nil
	}
	switch v := p.Env.Get(probe.EnvVar); v {
	case "1":
		return how{why: "inside " + where + ", which reads OSC 7501 from its panes, and the probe was answered (" + probe.EnvVar + "=1)"}, nil
	case "0":
		return inactive("the OSC 7501 query went unanswered (%s=0); set progstatus.enabled to true if it shows the status all the same", probe.EnvVar)
	case "":
		return inactive("the host did not probe the terminal (%s is unset); have the host run the probe, or set progstatus.enabled to true", probe.EnvVar)
	default:
		return inactive("%s=%s is neither 1 nor 0; set progstatus.enabled to true to force it", probe.EnvVar, adapter.Bound(v, 20))
	}
}
