package session

import (
	"encoding/json"
	"errors"
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

// ErrNotInteractive is wrapped by the error [Host.Interactive] returns for a
// host that may not claim a pane.
var ErrNotInteractive = errors.New("not an interactive root session")

// Host describes how the agent runs. The zero value is a host that may claim
// nothing: a pane-claiming adapter needs Mode [ModeTUI], HasUI and Role
// [RoleRoot] (see [Host.Interactive]).
type Host struct {
	Mode  Mode `json:"mode"`
	HasUI bool `json:"has_ui"`
	Role  Role `json:"role"`
	// Identity names the session when the host knows it at start. An
	// identity set later on the source's snapshot ([Store.SetIdentity])
	// replaces it.
	Identity Identity `json:"identity"`
	// LoadedExtensions are the paths of the extensions or plugins the host
	// actually loaded in this process (not every package on disk).
	LoadedExtensions []string `json:"loaded_extensions,omitempty"`
}

// Interactive reports whether the host is an interactive root session, the
// only kind that may claim a pane. When it is not, the error wraps
// [ErrNotInteractive] and says which conditions failed.
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
	return fmt.Errorf("%w: %s", ErrNotInteractive, strings.Join(why, "; "))
}

// Identity names the chat session: its id, the absolute path of its native
// session file when it has one, and the command that reopens it. It is
// comparable, so a [Snapshot] stays comparable.
type Identity struct {
	ID   string `json:"id,omitempty"`   // session id
	Path string `json:"path,omitempty"` // absolute path of the native session file, or ""
	// Resume is the command that reopens this session (for example
	// mychat --resume abc), for workspaces that can restart an agent after
	// their own restart (Herdr 0.9.2 and later). Each adapter validates it
	// before use and drops it, with a diagnostic, when it cannot be sent.
	Resume Argv `json:"resume,omitzero"`
}

// Argv is a comparable, immutable argument vector: a program name and its
// arguments. The zero value is empty. Build one with [NewArgv].
type Argv struct {
	// joined holds the words separated by NUL, which no argument of a real
	// process can contain; a word that does is refused by NewArgv.
	joined string
	n      int
}

// NewArgv returns the argument vector words. A word containing a NUL byte
// cannot be an argument of a process; NewArgv returns an error for it.
func NewArgv(words ...string) (Argv, error) {
	for i, w := range words {
		if strings.IndexByte(w, 0) >= 0 {
			return Argv{}, fmt.Errorf("session: argument %d contains a NUL byte", i)
		}
	}
	return Argv{joined: strings.Join(words, "\x00"), n: len(words)}, nil
}

// MustArgv is like [NewArgv] but panics on a NUL byte. It is meant for
// constant command lines.
func MustArgv(words ...string) Argv {
	a, err := NewArgv(words...)
	if err != nil {
		panic(err)
	}
	return a
}

// Len returns the number of words.
func (a Argv) Len() int { return a.n }

// IsZero reports whether a has no words.
func (a Argv) IsZero() bool { return a.n == 0 }

// Words returns a fresh copy of the words, or nil when there are none.
func (a Argv) Words() []string {
	if a.n == 0 {
		return nil
	}
	return strings.Split(a.joined, "\x00")
}

// String returns the words separated by spaces, for logs and Explain; it is
// not a shell command line.
func (a Argv) String() string { return strings.Join(a.Words(), " ") }

// MarshalJSON encodes a as a JSON array of strings.
func (a Argv) MarshalJSON() ([]byte, error) {
	w := a.Words()
	if w == nil {
		w = []string{}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes a JSON array of strings (or null).
func (a *Argv) UnmarshalJSON(b []byte) error {
	var w []string
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("session: resume argv: %w", err)
	}
	v, err := NewArgv(w...)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Equal reports whether a and b hold the same words (a == b does the same;
// the method lets go-cmp compare values that hold an Argv).
func (a Argv) Equal(b Argv) bool { return a == b }
