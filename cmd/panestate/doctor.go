package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/panestate/panestate/internal/doctor"
	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/settings"
)

// runDoctor is `panestate doctor`: the doctor of examples/doctor, asking
// about app panestate (~/.panestate/agent/settings.json, Herdr source
// custom:panestate) unless --app names another. For app panestate, its
// text output then says, per agent, what `panestate hook <agent>` would do
// here, read with the settings the hook's bridge reads (registryOptions):
// the global file and the agent's own.
func runDoctor(args []string, stdout, stderr io.Writer, env []string) int {
	perAgent := !hasFlag(args, "app") && !hasFlag(args, "json") && !hasFlag(args, "q") &&
		!hasFlag(args, "h") && !hasFlag(args, "help")
	terminal := false
	if f, ok := stdout.(*os.File); ok {
		terminal = doctor.IsTerminal(f)
	}
	// The hooks' bridge reads no project settings: none is shown for
	// panestate (another app's hosts do read theirs).
	status := doctor.RunConfig(context.Background(), doctor.Config{App: appName, NoProject: true}, args, stdout, stderr, env, terminal)
	if perAgent && status != 2 {
		fmt.Fprint(stdout, installedDoctor(env))
		fmt.Fprint(stdout, agentsDoctor(env, boolFlag(args, "terminal", terminal)))
		if n := linkingNote(); n != "" {
			fmt.Fprintf(stdout, "  note: %s\n", n)
		}
	}
	return status
}

// installedDoctor says, per agent, whether its settings file runs
// `panestate hook <agent>` on every event panestate listens to
// (hook.Missing), read as install reads it (readSettings).
func installedDoctor(env []string) string {
	var b strings.Builder
	fmt.Fprint(&b, "\ninstalled: whether each agent's settings file runs `panestate hook <agent>` on every event panestate listens to:\n")
	for _, agent := range hook.Agents {
		fmt.Fprintf(&b, "  %s: %s\n", agent, doctor.Safe(installedVerdict(agent, env)))
	}
	return b.String()
}

// installedVerdict is installedDoctor's line for agent.
func installedVerdict(agent hook.Agent, env []string) string {
	home := lookup(env, "HOME")
	if runtime.GOOS == "windows" {
		home = lookup(env, "USERPROFILE")
	}
	if !filepath.IsAbs(home) {
		return "cannot tell: no home directory (HOME)"
	}
	path := filepath.Join(home, filepath.FromSlash(hook.SettingsFile(agent)))
	if agent == hook.Codex {
		// Where install writes: under CODEX_HOME, as Codex reads it.
		dir, err := codexHome(env, home)
		if err != nil {
			return "cannot tell: " + err.Error()
		}
		path = filepath.Join(dir, "hooks.json")
	}
	install := "; run `panestate install " + string(agent) + "`"
	_, b, _, err := readSettings(path)
	switch {
	case err != nil:
		return "cannot tell: " + err.Error()
	case b == nil:
		return "not installed: " + path + " is missing" + install
	}
	missing, err := hook.Missing(agent, b)
	switch {
	case err != nil:
		return "cannot tell: " + path + ": " + err.Error()
	case len(missing) == 0:
		return "installed: " + path + " runs panestate's hook on every event it listens to"
	case len(missing) == len(hook.Events(agent)):
		return "not installed: " + path + " runs no panestate hook" + install
	}
	return "partly installed: " + path + " lacks it on " + strings.Join(missing, ", ") + install
}

// agentsDoctor says, per agent, what its hook would do in the pane env
// names. The bridge writes to the agent's terminal: terminal says whether
// there is one here (the doctor's own stdout is a terminal, or --terminal).
func agentsDoctor(env []string, terminal bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nhooks: what `panestate hook <agent>` would do here, with %s and the agent's own file (what the probes above found holds for each):\n",
		doctor.Safe(filepath.Join(settingsDir(env), "settings.json")))
	for _, agent := range hook.Agents {
		// The verdict holds outside text: paths under HOME, settings
		// errors, the adapters' reasons.
		fmt.Fprintf(&b, "  %s: %s\n", agent, doctor.Safe(agentVerdict(agent, env, terminal)))
	}
	if !terminal && bridgeSupported && len(paneVars(env)) > 0 {
		fmt.Fprintf(&b, "  (%s not checked: they write to the agent's terminal, and this is not on one; run this in the agent's tab, or give --terminal)\n",
			strings.Join(terminalAdapters[:len(terminalAdapters)-1], ", ")+" and "+terminalAdapters[len(terminalAdapters)-1])
	}
	return b.String()
}

// terminalAdapters are the adapters that write to the agent's terminal.
var terminalAdapters = []string{"progstatus", "terminal", "wezterm"}

// agentVerdict is what the hook of agent would do in the pane env names,
// on a terminal when terminal is true.
func agentVerdict(agent hook.Agent, env []string, terminal bool) string {
	if !bridgeSupported {
		return "reads its event and exits: the bridge needs Unix sockets with peer credentials (Linux, macOS)"
	}
	pane := paneVars(env)
	opts := bridgeOptions(agent, env, pane)
	if terminal || len(pane) == 0 {
		// The doctor writes nothing to it. In a plain terminal tab the
		// hook decides as if the agent had a terminal, then looks for it.
		opts.Terminal = io.Discard
	}
	reg, err := registry.New(opts)
	if err != nil {
		return "starts nothing: " + err.Error()
	}
	e := reg.Explain()
	file := "its file " + agentSettingsPath(settingsDir(env), agent) + ": " + agentFile(e)
	if len(pane) == 0 {
		if last := lastTerminal(agent, env); last != "" {
			file += "; its last bridge in this tab " + last
		}
		return tabVerdict(e, file)
	}
	var off []string // adapters the agent's own file turns off
	for _, a := range e.Adapters {
		if !a.Enabled && a.EnabledBy == settings.LayerProject {
			off = append(off, a.Name)
		}
	}
	if len(off) > 0 {
		file += "; it turns off " + strings.Join(off, ", ")
	}
	file = onTerminal(e, terminal) + file
	if last := lastTerminal(agent, env); last != "" {
		file += "; its last bridge here " + last
	}
	open, failing := doctor.Would(e)
	switch {
	case len(open) > 0:
		return "starts its bridge, which would report to " + strings.Join(open, ", ") + "; " + file
	case len(failing) > 0:
		return "starts its bridge, which would report nowhere: " + strings.Join(failing, "; ") + "; " + file
	case len(off) > 0:
		return "starts its bridge, which would report nowhere; " + file
	}
	return "starts its bridge, which would report nowhere (see why above); " + file
}

// tabVerdict is what the hook would do outside every workspace pane, in a
// plain terminal tab, from the explanation of its bridge's registry there
// (tabDrivers), and file, what was found of the agent's own settings file.
func tabVerdict(e registry.Explanation, file string) string {
	if open, _ := doctor.Would(e); len(open) > 0 {
		return "starts its bridge on the agent's terminal (a plain terminal tab: no HERDR_* pane variables, no TMUX_PANE), " +
			"which would report to " + strings.Join(open, ", ") + " if the agent has a terminal; " + file
	}
	return "starts nothing: no workspace pane here (no HERDR_* pane variables, no TMUX_PANE), and no reporter would write to the agent's terminal: " +
		onTerminal(e, true) + file
}

// onTerminal says why the adapters that write to the agent's terminal would
// not, each as "<why>; ", or "" when they all would.
func onTerminal(e registry.Explanation, terminal bool) string {
	if !terminal {
		return "" // said once, after the agents
	}
	var b strings.Builder
	for _, a := range e.Adapters {
		if slices.Contains(terminalAdapters, a.Name) && !a.Enabled {
			fmt.Fprintf(&b, "%s: turned off; ", a.Name)
		} else if slices.Contains(terminalAdapters, a.Name) && a.Lifecycle != registry.LifecycleNotAttached {
			fmt.Fprintf(&b, "%s; ", a.Why)
		}
	}
	return b.String()
}

// boolFlag is the value of boolean flag name in args (-name, --name,
// -name=false, ...), before any "--"; def when args do not set it.
func boolFlag(args []string, name string, def bool) bool {
	v := def
	for _, a := range args {
		if a == "--" {
			break
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name {
			v = true
		} else if val, ok := strings.CutPrefix(a, name+"="); ok {
			if b, err := strconv.ParseBool(val); err == nil {
				v = b
			}
		}
	}
	return v
}

// agentFile says how the explanation found the agent's own settings file
// (the project layer of registryOptions).
func agentFile(e registry.Explanation) string {
	for _, f := range e.Files {
		if f.Layer != settings.LayerProject || f.TrustStore {
			continue
		}
		if f.Err != "" {
			return string(f.Condition) + " (" + f.Err + ")"
		}
		return string(f.Condition)
	}
	return "not read"
}

// settingsDir is the folder of the hook's settings files.
func settingsDir(env []string) string {
	return filepath.Join(lookup(env, "HOME"), "."+appName, "agent")
}

// hasFlag reports whether args set flag name (-name, --name, with or
// without =value), before any "--".
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}
