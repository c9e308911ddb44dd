package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/registry"
)

// maxPayload bounds what is read of a hook's stdin.
const maxPayload = 16 << 20

// runHook is `panestate hook`. As the agent's hook it always returns 0 and
// writes nothing to stdout: Claude Code adds a SessionStart or
// UserPromptSubmit hook's stdout to the model's context, Gemini CLI reads
// exit status 2 as "block". A panic on the way, which would exit 2, drops
// the event with a fixed line on stderr (the panic's value could hold some
// of the payload).
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) (code int) {
	if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		// No agent's hook starts with a flag: this is a person at a
		// prompt, who gets a usage error rather than a wait on stdin.
		return runHookFlags(args, stdout, stderr, env)
	}
	defer func() {
		if recover() != nil {
			fmt.Fprint(stderr, "panestate: hook: internal error, event dropped\n")
			code = 0
		}
	}()
	start := eventTime()
	if len(args) != 1 {
		fmt.Fprint(stderr, "panestate: hook takes one agent: claude-code, codex or gemini\n")
		drainPayload(stdin)
		return 0
	}
	agent, err := hook.ParseAgent(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "panestate: %v\n", err)
		drainPayload(stdin)
		return 0
	}
	b := readPayload(stdin)
	pane, reporters := workspace(agent, env)
	if len(pane) == 0 && len(reporters) == 0 {
		// Outside every pane, in a tab whose terminal no reporter would
		// write to: nothing to start.
		return 0
	}
	e, err := hook.Parse(agent, b)
	if err != nil {
		fmt.Fprintf(stderr, "panestate: %v\n", err) // holds nothing of the payload
		return 0
	}
	if e.Kind == hook.KindIgnore && e.Sub == hook.SubNone {
		return 0
	}
	pid, ok := codexPanePID(agent, agentPID(), pane)
	if !ok {
		return 0 // Codex's daemon, working on for no TUI in this pane
	}
	e.PID = pid
	e.Time = start
	if e.Transcript != "" {
		// Where the bridge starts reading: what the agent appends from now
		// on comes after this event.
		if e.Offset = transcriptSize(e.Transcript); e.Offset < 0 {
			e.Transcript, e.Offset = "", 0
		}
	}
	deliver(e, env, pane)
	return 0
}

// runHookFlags is `panestate hook` with a flag first, a command a person
// runs: --print-config <agent> (also --print-config=<agent>) or --help. It
// never reads stdin; a usage error exits 2.
func runHookFlags(args []string, stdout, stderr io.Writer, env []string) int {
	flag, value, hasValue := strings.Cut(args[0], "=")
	switch flag {
	case "--print-config", "-print-config":
		rest := args[1:]
		if hasValue {
			rest = append([]string{value}, rest...)
		}
		if len(rest) != 1 {
			fmt.Fprintf(stderr, "panestate: hook --print-config takes one agent: claude-code, codex or gemini\n%s", usage)
			return 2
		}
		return printConfig(rest[0], stdout, stderr, env)
	case "-h", "-help", "--help":
		if !hasValue && len(args) == 1 {
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	fmt.Fprintf(stderr, "panestate: hook: bad arguments %q\n%s", args, usage)
	return 2
}

// drainPayload reads an event that the hook drops, so that the agent
// writing it does not see its pipe closed; not from a terminal, where a
// person ran the hook by hand and would wait.
func drainPayload(r io.Reader) {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return
		}
	}
	readPayload(r)
}

// payloadTimeout bounds the read of a hook's stdin, for an agent that
// leaves it open without a complete event on it (part of a JSON value,
// nothing, bytes that are no JSON): the agents write the event at once,
// and their own hook timeout (5 s as install sets it) must not be what
// ends the hook.
const payloadTimeout = 2 * time.Second

// readPayload reads the agent's event from r: one JSON value, so that an
// agent that leaves stdin open after writing it does not hold the hook up.
// What is not one JSON value is read to its end (at most maxPayload) and
// returned as it is, for Parse to refuse. On Linux and macOS the whole
// read ends at payloadTimeout (boundRead), with what came by then.
func readPayload(r io.Reader) []byte {
	if r == nil {
		return nil
	}
	r = boundRead(r, time.Now().Add(payloadTimeout))
	var raw bytes.Buffer
	dec := json.NewDecoder(io.TeeReader(io.LimitReader(r, maxPayload), &raw))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		_, _ = io.Copy(&raw, io.LimitReader(r, maxPayload))
		return raw.Bytes()
	}
	return v
}

// paneVars returns the variables of env that name a workspace pane (those
// Registry.ScrubEnv removes: HERDR_*, TMUX_PANE, ...), sorted, and with
// TMUX_PANE the TMUX that names its server. None means no workspace is
// listening.
//
// A tmux pane id names a pane within one server only: every server's
// first pane is %0. Without the server, the agents in the first panes of
// two tmux servers (tmux -L work, tmux -L play) would share one bridge,
// and one pane would show the other's events. TMUX is not scrubbed (tools
// find the server with it), so it is added here.
func paneVars(env []string) []string {
	reg, err := registry.New(registry.Options{App: "panestate", Env: env})
	if err != nil {
		return nil // cannot happen: the app name is a constant, valid one
	}
	pane := scrubbed(reg, env)
	if slices.ContainsFunc(pane, func(kv string) bool { return strings.HasPrefix(kv, "TMUX_PANE=") }) {
		if server := lookup(env, "TMUX"); server != "" {
			pane = append(pane, "TMUX="+server)
			slices.Sort(pane)
		}
	}
	return pane
}

// scrubbed returns the variables of env that reg's ScrubEnv removes,
// sorted.
func scrubbed(reg *registry.Registry, env []string) []string {
	kept := reg.ScrubEnv(env)
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
