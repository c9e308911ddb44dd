package builtin

import (
	"fmt"
	"strings"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// CheckHost returns nil when h may claim a pane (an interactive root
// session: [session.Host] Interactive and Root), or an error wrapping
// [adapter.ErrInactive] that says which condition failed. A pane-claiming
// driver calls it first in Open and Check.
func CheckHost(h session.Host) error {
	var why []string
	if !h.Interactive {
		why = append(why, "the host is not interactive (a print, JSON or RPC run, or no UI)")
	}
	if !h.Root {
		why = append(why, "the host is not the root session (a subagent or a workflow stage)")
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: not an interactive root session: %s", adapter.ErrInactive, strings.Join(why, "; "))
}
