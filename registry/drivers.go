package registry

import (
	"os"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/optional"
)

// namePattern is the form of an adapter's name, checked by validName.
const namePattern = "^[a-z][a-z0-9_-]*$"

// validName reports whether name matches namePattern. It is checked by
// hand: a compiled regexp costs every program that links the registry
// about 0.1 ms and hundreds of allocations at start, which a hook process
// run per agent event pays.
func validName(name string) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ScrubEnv returns env without the pane variables of this registry's
// workspaces (every HERDR_* variable, tmux's TMUX_PANE): each of its drivers
// that implements adapter.EnvScrubber is asked, whether or not its adapter
// runs. Give the result to the tool subprocesses the agent starts, so that a
// nested agent can never claim or release the pane of the agent that started
// it. A nil env means the process environment. It is safe to call at any
// time from any goroutine, before Attach and after Detach too; a driver that
// panics in it is recovered and leaves env as it was.
func (r *Registry) ScrubEnv(env []string) []string {
	r.mustBeMade()
	e := adapter.Env(env)
	if env == nil {
		e = adapter.Env(os.Environ())
	}
	for _, s := range r.entries {
		r.guard(s, "ScrubEnv", func() { e = optional.ScrubEnv(s.driver, e) })
	}
	return e
}
