package registry

import (
	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr"
	"github.com/panestate/panestate/adapters/noop"
	"github.com/panestate/panestate/adapters/progstatus"
	"github.com/panestate/panestate/adapters/terminal"
	"github.com/panestate/panestate/adapters/tmux"
	"github.com/panestate/panestate/adapters/wezterm"
)

// Builtin returns the built-in drivers by name: what a registry runs when
// [Options].Drivers is nil. The map is new on each call; a host that adds an
// adapter of its own adds it to this map and passes the result as
// Options.Drivers. A new workspace is one adapter package plus one line here.
func Builtin() map[string]adapter.Driver {
	return map[string]adapter.Driver{
		"herdr":      herdr.Driver{},
		"noop":       noop.Driver{},
		"progstatus": progstatus.Driver{},
		"terminal":   terminal.Driver{},
		"tmux":       tmux.Driver{},
		"wezterm":    wezterm.Driver{},
	}
}
