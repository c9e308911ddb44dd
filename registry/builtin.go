package registry

import (
	"github.com/panestate/panestate/adapters/herdr"
	"github.com/panestate/panestate/adapters/noop"
	"github.com/panestate/panestate/adapters/progstatus"
	"github.com/panestate/panestate/adapters/terminal"
	"github.com/panestate/panestate/adapters/tmux"
)

// The built-in adapters. A new workspace is one adapter package plus one line
// here (or a Register call from its own package, for third parties).
func init() {
	Register("herdr", herdr.Driver{})
	Register("noop", noop.Driver{})
	Register("progstatus", progstatus.Driver{})
	Register("terminal", terminal.Driver{})
	Register("tmux", tmux.Driver{})
}
