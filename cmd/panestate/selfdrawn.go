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

// writesStatus says, per agent, why its hooks' bridge leaves the tab's
// Program Status record (OSC 7501, the progstatus adapter) to the agent
// outside tmux and GNU screen, even with progstatus.enabled true: the
// agent writes its own record wherever the terminal answers its probe,
// and one tab's record never has two writers. Inside tmux or screen the
// agent's probe is not answered (neither passes OSC 7501 on), so the agent
// writes none there, and the bridge's record, wrapped for tmux's
// passthrough, is the only one. The evidence is in docs/agents.md.
var writesStatus = map[hook.Agent]string{
	hook.ClaudeCode: "Claude Code (2.1.295 and later) probes the terminal (OSC 7501 ; ?) at every start and writes the tab's Program Status record itself " +
		"wherever the terminal answers; panestate writes no second record beside it (inside tmux, where the probe is not answered, progstatus.enabled still applies)",
	hook.Codex: "Codex (0.169.0) carries its own Program Status (OSC 7501) writer for its TUI; " +
		"panestate writes no second record beside it (inside tmux, where the probe is not answered, progstatus.enabled still applies)",
}

// drivers are the drivers of the bridge's registry for agent: the built-in
// ones, with the terminal adapter left to the agent where drawsProgress
// says so, and the progstatus adapter where writesStatus does.
func drivers(agent hook.Agent) map[string]adapter.Driver {
	progress, draws := drawsProgress[agent]
	status, writes := writesStatus[agent]
	if !draws && !writes {
		return nil // registry.Builtin()
	}
	d := registry.Builtin()
	if draws {
		d["terminal"] = leftToAgent{name: "terminal", inner: d["terminal"], why: progress, runs: forced}
	}
	if writes {
		d["progstatus"] = leftToAgent{name: "progstatus", inner: d["progstatus"], why: status, runs: multiplexed}
	}
	return d
}

// forced says a settings file set the adapter's "enabled" to true.
func forced(p adapter.Params) bool { return p.Forced }

// multiplexed says the agent runs inside tmux or GNU screen, which answer
// no OSC 7501 probe: an agent that writes its own record only where its
// probe is answered writes none there.
func multiplexed(p adapter.Params) bool { return p.Env.Get("TMUX") != "" || p.Env.Get("STY") != "" }

// leftToAgent is a driver whose adapter runs only where runs says so;
// otherwise it is inactive, for the reason why. Where it runs, it is the
// inner driver.
type leftToAgent struct {
	name  string // the adapter's name, which starts its errors
	inner adapter.Driver
	why   string
	runs  func(adapter.Params) bool
}

// Open opens the inner adapter where it runs.
func (d leftToAgent) Open(ctx context.Context, p adapter.Params) (adapter.Adapter, error) {
	if err := d.Check(p); err != nil {
		return nil, err
	}
	return d.inner.Open(ctx, p)
}

// Check says what Open would: the inner driver's reason first (a host that
// handed over no terminal), then why the agent keeps the adapter's part.
func (d leftToAgent) Check(p adapter.Params) error {
	if err := optional.Check(d.inner, p); err != nil {
		return err
	}
	if !d.runs(p) {
		return fmt.Errorf("%s: %w: %s", d.name, adapter.ErrInactive, d.why)
	}
	return nil
}

// Settings are the inner driver's.
func (d leftToAgent) Settings() (enabledByDefault bool, keys []string) {
	return optional.Settings(d.inner)
}

// ScrubEnv is the inner driver's.
func (d leftToAgent) ScrubEnv(env adapter.Env) adapter.Env { return optional.ScrubEnv(d.inner, env) }
