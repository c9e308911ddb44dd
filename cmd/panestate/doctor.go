package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	perAgent := !hasFlag(args, "app") && !hasFlag(args, "json") && !hasFlag(args, "q")
	if !hasFlag(args, "app") {
		args = append([]string{"--app", appName}, args...)
	}
	terminal := false
	if f, ok := stdout.(*os.File); ok {
		terminal = doctor.IsTerminal(f)
	}
	status := doctor.Run(context.Background(), args, stdout, stderr, env, terminal)
	if perAgent && status != 2 {
		fmt.Fprint(stdout, agentsDoctor(env))
		if n := linkingNote(); n != "" {
			fmt.Fprintf(stdout, "  note: %s\n", n)
		}
	}
	return status
}

// agentsDoctor says, per agent, what its hook would do in the pane env
// names.
func agentsDoctor(env []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nhooks: what `panestate hook <agent>` would do here, with %s and the agent's own file (what the probes above found holds for each):\n",
		doctor.Safe(filepath.Join(settingsDir(env), "settings.json")))
	for _, agent := range hook.Agents {
		// The verdict holds outside text: paths under HOME, settings
		// errors, the adapters' reasons.
		fmt.Fprintf(&b, "  %s: %s\n", agent, doctor.Safe(agentVerdict(agent, env)))
	}
	return b.String()
}

// agentVerdict is what the hook of agent would do in the pane env names.
func agentVerdict(agent hook.Agent, env []string) string {
	if !bridgeSupported {
		return "reads its event and exits: the bridge needs Unix sockets with peer credentials (Linux, macOS)"
	}
	if len(paneVars(env)) == 0 {
		return "starts nothing: no workspace pane here (no HERDR_* pane variables, no TMUX_PANE)"
	}
	reg, err := registry.New(registryOptions(agent, env))
	if err != nil {
		return "starts nothing: " + err.Error()
	}
	e := reg.Explain()
	file := "its file " + agentSettingsPath(settingsDir(env), agent) + ": " + agentFile(e)
	var off []string // adapters the agent's own file turns off
	for _, a := range e.Adapters {
		if !a.Enabled && a.EnabledBy == settings.LayerProject {
			off = append(off, a.Name)
		}
	}
	if len(off) > 0 {
		file += "; it turns off " + strings.Join(off, ", ")
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
