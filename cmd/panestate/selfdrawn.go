package main

import (
	"context"
	"fmt"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/registry"
)

// drawsProgress says, per agent, why its hooks' bridge leaves the tab's
// progress indicator (OSC 9;4, the terminal adapter) to the agent unless
// terminal.enabled is true: an agent that drives the indicator itself
// would fight the bridge over it. The evidence is in docs/agents.md.
var drawsProgress = map[hook.Agent]string{
	hook.ClaudeCode: "Claude Code drives the tab's progress indicator (OSC 9;4) itself (its terminalProgressBarEnabled setting, on by default); " +
		"set terminal.enabled to true in ~/.panestate/agent/claude-code.json to have panestate drive it instead",
}

// drivers are the drivers of the bridge's registry for agent: the built-in
// ones, with the terminal adapter left to the agent where drawsProgress
// says so.
func drivers(agent hook.Agent) map[string]adapter.Driver {
	why, ok := drawsProgress[agent]
	if !ok {
		return nil // registry.Builtin()
	}
	d := registry.Builtin()
	d["terminal"] = leftToAgent{inner: d["terminal"], why: why}
	return d
}

// leftToAgent is a driver whose adapter runs only where a settings file
// sets "enabled" to true (adapter.Params.Forced); otherwise it is inactive,
// for the reason why. Forced, it is the inner driver.
type leftToAgent struct {
	inner adapter.Driver
	why   string
}

// Open opens the inner adapter when forced.
func (d leftToAgent) Open(ctx context.Context, p adapter.Params) (adapter.Adapter, error) {
	if err := d.Check(p); err != nil {
		return nil, err
	}
	return d.inner.Open(ctx, p)
}

// Check says what Open would: the inner driver's reason first (a host that
// handed over no terminal), then why the agent keeps the adapter.
func (d leftToAgent) Check(p adapter.Params) error {
	if err := optional.Check(d.inner, p); err != nil {
		return err
	}
	if !p.Forced {
		return fmt.Errorf("terminal: %w: %s", adapter.ErrInactive, d.why)
	}
	return nil
}

// Settings are the inner driver's.
func (d leftToAgent) Settings() (enabledByDefault bool, keys []string) {
	return optional.Settings(d.inner)
}
