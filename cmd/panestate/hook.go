package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/registry"
)

// maxPayload bounds what is kept of a hook's stdin; the rest is read and
// dropped, so that the agent never meets a closed pipe.
const maxPayload = 16 << 20

// runHook is `panestate hook`. As the agent's hook it always returns 0 and
// writes nothing to stdout: Claude Code adds a SessionStart or
// UserPromptSubmit hook's stdout to the model's context, Gemini CLI reads
// exit status 2 as "block".
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
	if len(args) == 2 && args[0] == "--print-config" {
		return printConfig(args[1], stdout, stderr)
	}
	start := time.Now()
	if len(args) != 1 {
		fmt.Fprint(stderr, "panestate: hook takes one agent: claude-code, codex or gemini\n")
		drain(stdin)
		return 0
	}
	agent, err := hook.ParseAgent(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "panestate: %v\n", err)
		drain(stdin)
		return 0
	}
	b, _ := io.ReadAll(io.LimitReader(stdin, maxPayload))
	drain(stdin)
	pane := paneVars(env)
	if len(pane) == 0 {
		return 0 // outside every workspace: nothing to start
	}
	e, err := hook.Parse(agent, b)
	if err != nil {
		fmt.Fprintf(stderr, "panestate: %v\n", err) // holds nothing of the payload
		return 0
	}
	if e.Kind == hook.KindIgnore {
		return 0
	}
	e.PID = agentPID()
	e.Time = start.UnixNano()
	deliver(e, env, pane)
	return 0
}

// drain reads r to its end.
func drain(r io.Reader) { _, _ = io.Copy(io.Discard, r) }

// paneVars returns the variables of env that name a workspace pane (those
// registry.ScrubEnv removes: HERDR_*, TMUX_PANE, ...), sorted. None means
// no workspace is listening.
func paneVars(env []string) []string {
	kept := registry.ScrubEnv(env)
	if len(kept) == len(env) {
		return nil
	}
	var pane []string
	for _, kv := range env {
		if !slices.Contains(kept, kv) {
			pane = append(pane, kv)
		}
	}
	slices.Sort(pane)
	return pane
}

// lookup returns the value of key in env ("" when unset).
func lookup(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}
