package main

import (
	"io"
	"maps"
	"slices"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/doctor"
	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/registry"
)

// A plain terminal tab (Ghostty, iTerm2, WezTerm, VS Code, a terminal over
// ssh: no Herdr or tmux pane) is a workspace when a reporter that writes to
// the agent's terminal would run there. Its bridge is keyed on the agent's
// terminal, not on a pane, and reports to those reporters alone.

// tabDrivers are the drivers of the bridge of agent in a plain terminal
// tab: those of drivers(agent) that write to the agent's terminal
// (terminalAdapters), nothing else.
func tabDrivers(agent hook.Agent) map[string]adapter.Driver {
	d := drivers(agent)
	if d == nil {
		d = registry.Builtin()
	}
	maps.DeleteFunc(d, func(name string, _ adapter.Driver) bool { return !slices.Contains(terminalAdapters, name) })
	return d
}

// bridgeOptions are the options of the bridge's registry for agent in env:
// registryOptions in a workspace pane (pane holds its variables), with the
// drivers of a plain terminal tab (tabDrivers) outside every pane.
func bridgeOptions(agent hook.Agent, env, pane []string) registry.Options {
	opts := registryOptions(agent, env)
	if len(pane) == 0 {
		opts.Drivers = tabDrivers(agent)
	}
	return opts
}

// workspace says where the hook of agent runs, from env, with one
// registry made with the bridge's settings (registryOptions) and a
// terminal: pane holds the variables that name a workspace pane (as
// paneVars); outside every pane, reporters names the adapters that would
// write the state to the agent's terminal in a plain terminal tab, by
// their own decisions (each driver's Check, through Explain) from the
// environment and the settings files the bridge reads. Whether the agent
// has a terminal is the hook's next question (agentTerminal), asked only
// when reporters is not empty; with neither, the hook starts nothing.
func workspace(agent hook.Agent, env []string) (pane, reporters []string) {
	opts := registryOptions(agent, env)
	opts.Terminal = io.Discard // nothing is written to it
	reg, err := registry.New(opts)
	if err != nil {
		return nil, nil // cannot happen: the options are constant but for env
	}
	if pane = scrubbed(reg, env); len(pane) > 0 || !bridgeSupported {
		return pane, nil
	}
	// Each adapter's verdict in Explain is its own: the same as in the
	// registry of the tab's bridge, which has only these adapters.
	open, _ := doctor.Would(reg.Explain())
	for _, name := range open {
		if slices.Contains(terminalAdapters, name) {
			reporters = append(reporters, name)
		}
	}
	return nil, reporters
}
