package adapter

import (
	"fmt"
	"strings"
)

// Mode is how the host agent runs.
type Mode string

// Modes.
const (
	ModeTUI   Mode = "tui"   // an interactive terminal UI
	ModePrint Mode = "print" // print the answer and exit
	ModeJSON  Mode = "json"  // machine-readable output
	ModeRPC   Mode = "rpc"   // driven by another program
)

// Role is the place of this agent process among the agents of one task.
type Role string

// Roles.
const (
	RoleRoot          Role = "root"           // the session the person talks to
	RoleSubagent      Role = "subagent"       // a child agent started by another agent
	RoleWorkflowStage Role = "workflow-stage" // one stage of a workflow
)

// Identity names the host's chat session.
type Identity struct {
	ID   string `json:"id,omitempty"`   // session id
	Path string `json:"path,omitempty"` // absolute path of the native session file, or ""
}

// Host describes how the agent runs. The zero value is a host that may claim
// nothing: a pane-claiming adapter needs Mode [ModeTUI], HasUI and Role
// [RoleRoot] (see [Host.Interactive]).
type Host struct {
	Mode     Mode     `json:"mode"`
	HasUI    bool     `json:"has_ui"`
	Role     Role     `json:"role"`
	Identity Identity `json:"identity"`
	// LoadedExtensions are the paths of the extensions or plugins the host
	// actually loaded in this process (not every package on disk).
	LoadedExtensions []string `json:"loaded_extensions,omitempty"`
}

// Interactive reports whether the host is an interactive root session, the
// only kind that may claim a pane. When it is not, the error says which
// condition failed.
func (h Host) Interactive() error {
	var why []string
	if h.Mode != ModeTUI {
		mode := string(h.Mode)
		if mode == "" {
			mode = "unset"
		}
		why = append(why, fmt.Sprintf("mode is %s, not tui", mode))
	}
	if !h.HasUI {
		why = append(why, "the host has no UI")
	}
	if h.Role != RoleRoot {
		role := string(h.Role)
		if role == "" {
			role = "unset"
		}
		why = append(why, fmt.Sprintf("role is %s, not root", role))
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrInactive, strings.Join(why, "; "))
}
