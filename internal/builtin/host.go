package builtin

import (
	"fmt"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// CheckHost returns nil when h may claim a pane (an interactive root
// session, [session.Host.Interactive]), or an error wrapping both
// [adapter.ErrInactive] and [session.ErrNotInteractive] that says why not.
// A pane-claiming driver calls it first in Open and Check.
func CheckHost(h session.Host) error {
	if err := h.Interactive(); err != nil {
		return fmt.Errorf("%w: %w", adapter.ErrInactive, err)
	}
	return nil
}
