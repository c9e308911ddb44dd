package main

import (
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
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

// workspace says where the hook of agent runs, from env: pane holds the
// variables that name a workspace pane (paneVars); outside every pane,
// reporters names the adapters that would write the state to the agent's
// terminal in a plain terminal tab: their own decisions (each driver's
// Check, through the Explain of the registry the tab's bridge would make,
// with the settings files it reads), asked only when mayReportInTab does
// not rule them all out. Whether the agent has a terminal is the hook's
// next question (agentTerminal), asked only when reporters is not empty;
// with neither, the hook starts nothing.
func workspace(agent hook.Agent, env []string) (pane, reporters []string) {
	if pane = paneVars(env); len(pane) > 0 || !bridgeSupported || !mayReportInTab(agent, env) {
		return pane, nil
	}
	return nil, tabReporters(agent, env)
}

// tabReporters are the adapters that the registry of agent's bridge in a
// plain terminal tab would open, given a terminal: their Check, through
// Explain, with the settings files the bridge reads.
func tabReporters(agent hook.Agent, env []string) []string {
	opts := bridgeOptions(agent, env, nil)
	opts.Terminal = io.Discard // nothing is written to it
	reg, err := registry.New(opts)
	if err != nil {
		return nil // cannot happen: the options are constant but for env
	}
	open, _ := doctor.Would(reg.Explain())
	return open
}

// mayReportInTab is workspace's pre-check, which can only say "maybe"
// (true) or what the registry would say: where neither settings file the
// bridge reads is there, every adapter has its defaults (on, not forced,
// no section), so the registry's decision is each driver's own Check with
// those settings, asked here without the cost of a registry and of reading
// the settings; where either file is there, or HOME is unset, the registry
// decides. TestTabPreCheckAgreesWithTheRegistry holds the two together.
func mayReportInTab(agent hook.Agent, env []string) (maybe bool) {
	if lookup(env, "HOME") == "" {
		return true
	}
	dir := settingsDir(env)
	for _, f := range []string{filepath.Join(dir, "settings.json"), agentSettingsPath(dir, agent)} {
		if _, err := os.Lstat(f); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	defer func() {
		if recover() != nil {
			maybe = true // a driver's Check panicked: the registry, which guards it, decides
		}
	}()
	p := adapter.Params{App: appName, Env: adapter.Env(env), Host: bridgeHost, Terminal: io.Discard}
	for name, d := range tabDrivers(agent) {
		if s, ok := d.(adapter.SettingsOwner); ok {
			if on, _ := s.Settings(); !on {
				continue // off by default, and no file turns it on
			}
		}
		c, ok := d.(adapter.Checker)
		if !ok {
			return true
		}
		p.Name = name
		if err := c.Check(p); err == nil || !errors.Is(err, adapter.ErrInactive) {
			return true
		}
	}
	return false
}
