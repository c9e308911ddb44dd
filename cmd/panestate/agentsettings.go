package main

import (
	"path/filepath"

	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// registryOptions are the options of the bridge's registry for agent in the
// environment env: an interactive root session of app panestate, with the
// global settings file ~/.panestate/agent/settings.json for every agent
// and ~/.panestate/agent/<agent>.json, as the project layer, for this
// agent alone. Both are the person's own files, so the second is trusted.
// An agent that drives the tab's progress indicator itself keeps it
// (drivers).
func registryOptions(agent hook.Agent, env []string) registry.Options {
	home := lookup(env, "HOME")
	dir := settingsDir(env)
	return registry.Options{
		App:     appName,
		Host:    bridgeHost,
		Env:     env,
		Drivers: drivers(agent),
		Settings: settings.Options{
			Home:        home,
			ProjectRoot: dir,
			ProjectPath: agentSettingsPath(dir, agent),
			Trust:       func(string) (bool, error) { return true, nil },
		},
	}
}

// bridgeHost is how the agent behind the hooks runs: an interactive root
// session, which may claim its pane or tab.
var bridgeHost = session.Host{Interactive: true, Root: true}

// agentSettingsPath is the per-agent settings file in dir.
func agentSettingsPath(dir string, agent hook.Agent) string {
	return filepath.Join(dir, string(agent)+".json")
}
