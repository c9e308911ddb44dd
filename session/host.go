package session

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Host describes how the agent process runs. Only an interactive root
// session claims a pane, so the zero value is a host that claims nothing:
// a pane-claiming adapter needs both Interactive and Root.
type Host struct {
	// Interactive is set when a person uses the agent through the host's
	// terminal UI (a TUI mode with a UI). Print, JSON and RPC runs and runs
	// without a UI are not interactive.
	Interactive bool `json:"interactive"`
	// Root is set for the session the person talks to; a subagent or a
	// workflow stage, started by another agent, is not the root and never
	// claims its parent's pane.
	Root bool `json:"root"`
	// Identity names the session when the host knows it at start. An
	// identity set later on the source's snapshot ([Store.SetIdentity])
	// replaces it.
	Identity Identity `json:"identity"`
	// LoadedExtensions are the paths of the extensions or plugins the host
	// actually loaded in this process (not every package on disk). An
	// adapter defers to a conflicting reporter found here.
	LoadedExtensions []string `json:"loaded_extensions,omitempty"`
}

// Identity names the chat session: its id, the absolute path of its native
// session file when it has one, and the command that reopens it
// ([Identity.WithResume]). It is comparable, so a [Snapshot] stays
// comparable; compare identities with ==.
type Identity struct {
	ID   string `json:"id,omitempty"`   // session id
	Path string `json:"path,omitempty"` // absolute path of the native session file, or ""

	// resume holds the words of the resume command separated by NUL, which
	// no argument of a real process can contain (WithResume refuses it);
	// nresume tells no words from one empty word.
	resume  string
	nresume int
}

// WithResume returns a copy of id whose resume command is words: the
// program and its arguments (for example mychat --resume abc), never a
// shell line. Workspaces that can restart an agent after their own restart
// (Herdr 0.9.2 and later) send it; each adapter validates it before use and
// drops it, with a diagnostic, when it cannot be sent. No words clear the
// command. A word containing a NUL byte cannot be an argument of a process:
// WithResume returns an error for it, and id unchanged.
func (id Identity) WithResume(words ...string) (Identity, error) {
	for i, w := range words {
		if strings.IndexByte(w, 0) >= 0 {
			return id, fmt.Errorf("session: resume argument %d contains a NUL byte", i)
		}
	}
	id.resume, id.nresume = strings.Join(words, "\x00"), len(words)
	return id, nil
}

// Resume returns a fresh copy of the resume command's words, or nil when
// there is none.
func (id Identity) Resume() []string {
	if id.nresume == 0 {
		return nil
	}
	return strings.Split(id.resume, "\x00")
}

// Equal reports whether id and other name the same session with the same
// resume command, as id == other does. It is there for go-cmp, which
// cannot look inside an Identity's unexported fields: with it, cmp.Diff
// compares snapshots and hosts that hold one.
func (id Identity) Equal(other Identity) bool { return id == other }

// MarshalJSON encodes id as an object with the fields id, path and resume
// (an array of words), each left out when empty, as the registry's
// Explanation shows it.
func (id Identity) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID     string   `json:"id,omitempty"`
		Path   string   `json:"path,omitempty"`
		Resume []string `json:"resume,omitempty"`
	}{id.ID, id.Path, id.Resume()})
}
