package tmux

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// jsonOption is the pane's fourth option, @<prefix> (by default
// @panestate): the whole report as one JSON object, for tools that mirror
// tmux over control mode (across ssh) and would rather read one value
// than three. It is set in the same tmux invocation as the three flat
// options and unset with them.
type jsonOption struct {
	mu      sync.Mutex
	session string // the session id (SetSession), or ""
	now     func() time.Time
}

// jsonValue is the option's value. Every field is always there, so that
// a reader need not tell a missing key from an empty one.
type jsonValue struct {
	State   string `json:"state"`   // idle, working or blocked
	Message string `json:"message"` // one of the fixed texts, or ""
	Agent   string `json:"agent"`   // the agent label, as @<prefix>_agent
	App     string `json:"app"`     // the host application's name
	Session string `json:"session"` // the session id, or ""
	Updated string `json:"updated"` // when the report was sent, RFC 3339 in UTC, to the second
}

var _ adapter.SessionAware = (*Adapter)(nil)

// SetSession keeps the session id for the JSON option's "session"; the
// resume command and the session file's path are never sent to tmux.
func (a *Adapter) SetSession(id session.Identity) {
	a.json.mu.Lock()
	defer a.json.mu.Unlock()
	a.json.session = id.ID
}

// jsonName is the JSON option's name.
func jsonName(prefix string) string { return "@" + prefix }

// jsonValue is the JSON option's value for r.
func (a *Adapter) jsonValue(r adapter.Report) string {
	a.json.mu.Lock()
	v := jsonValue{State: r.State.String(), Message: r.Message.String(), Agent: a.label, App: a.label, Session: a.json.session}
	now := a.json.now
	a.json.mu.Unlock()
	if now == nil {
		now = time.Now
	}
	v.Updated = now().UTC().Format(time.RFC3339)
	b, _ := json.Marshal(v) // strings only: it cannot fail
	return string(b)
}
