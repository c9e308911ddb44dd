// Command chat is a small, scriptable chat host: it runs panestate's real
// registry, with the real environment and settings, and plays a chat
// session described by JSON lines. It is how you try panestate in your own
// Herdr pane, tmux pane or terminal tab, and the end-to-end driver of the
// project's tests.
//
// # Running it
//
// In a Herdr pane (or a tmux pane, or a terminal tab):
//
//	go run ./examples/chat --script examples/chat/testdata/turn.jsonl
//	go run ./examples/chat -v < examples/chat/testdata/workflow.jsonl
//	go run ./examples/chat            # type the lines yourself; Ctrl-D ends
//
// and watch the agent's state in Herdr's sidebar (or with `herdr agent
// list`), in tmux where your tmux.conf shows it (docs/tmux.md; or with
// `tmux show-options -p`), or on the tab's progress indicator
// (docs/terminal.md: the terminal is handed over only when stdout is one).
// Outside every workspace nothing is reported; `go run ./examples/doctor`
// explains why.
//
// # Script format
//
// One JSON object per line. Blank lines and lines starting with # are
// ignored. The ops:
//
//	{"op":"agent_start"}
//	{"op":"agent_settled"}
//	{"op":"phase","phase":"awaiting|thinking|streaming|tool_execution|idle|completed|error"}
//	{"op":"prompt_start","id":"p1","kind":"approval|question|secret|menu"}
//	{"op":"prompt_end","id":"p1"}
//	{"op":"workflows","availability":"ready|unavailable|recovering","roots":[{"id":"r1","status":"executing","needs_attention":false}]}
//	{"op":"tasks","running":2}
//	{"op":"identity","session_id":"abc","session_path":"/abs/path/session.jsonl","resume":["chat","--resume","abc"]}
//	{"op":"sleep","ms":50}
//	{"op":"quit"}
//
// agent_start/agent_settled and phase are the two vocabularies hosts use
// for the agent's own activity; the pane is working while either says so.
// A phase stays until another replaces it, so a script that uses both ends
// a turn with a phase of completed, idle or error as well as agent_settled.
//
// Workflow statuses are executing, automatic_continuation, retrying,
// stopping, awaiting_input, manual_intervention, paused and completed (or
// finished, failed, cancelled). A line that is not valid JSON, names an
// unknown op, has a field the op does not take (typos are caught this way)
// or a bad value is reported on stderr with its line number, and skipped;
// the session goes on:
//
//	chat: examples/chat/testdata/malformed.jsonl:5: unknown op "dance"
//
// The identity op's resume (optional) is the command that reopens the session
// (session.Identity.Resume); a workspace that can restart agents (Herdr
// 0.9.2 and later) receives it.
//
// At the end of the input, or at quit, the host detaches: the pane is
// released and the program exits 0. It exits 0 even when the workspace
// fails (a hung, missing or failing herdr): that is logged on stderr as a
// diagnostic, never the chat's failure. SIGINT and SIGTERM release the pane
// too before the program ends.
//
// # Exit status
//
//	0  the session ran to the end of the input or quit (bad lines and
//	   workspace failures included) and the host detached
//	1  the session could not run: the script cannot be opened or read,
//	   or Attach failed
//	2  bad flags or options
//
// SIGINT and SIGTERM end it as the signal would, after the release.
//
// Reports are sent only when the pane's state changes, and a change that
// arrives while the previous one is still being delivered replaces any
// other pending one (latest wins). Put a sleep between ops to see every
// state go by.
//
// # Flags
//
//	--app NAME               application name (default chat): settings in
//	                         ~/.NAME/agent/settings.json and
//	                         <project>/.NAME/settings.json, Herdr source
//	                         custom:NAME, label NAME
//	--project DIR            project root (default: the working directory)
//	--trust-project          apply the project's settings file
//	--mode tui|print|json|rpc  how the host runs (default tui)
//	--no-ui                  the host has no UI
//	--role root|subagent|workflow-stage  (default root)
//	--loaded-extension PATH  an extension the host loaded (repeatable)
//	--script FILE            read the session from FILE instead of stdin
//	--log-level LEVEL        hclog level of the log on stderr (default warn)
//	-q                       do not say at start which workspace is listening
//	--probe                  ask the terminal, before anything else, whether it reads OSC 7501 (the progstatus adapter)
//	-v                       print each op and the pane state it leads to
//
// At start, unless -q, one line on stderr says which workspace is
// listening, or that none is and why:
//
//	chat: reporting to herdr
//	chat: no workspace is listening (herdr: adapter inactive: HERDR_ENV is not set (not inside a Herdr pane); terminal: ...; tmux: ...)
//
// By default stdout stays empty; -v prints one line per op (sleeps aside)
// with the state the pane should show after it, and "detached" at the end:
//
//	line 5: agent_start -> working (executing)
//	line 9: prompt_start -> blocked (awaiting_input) "Waiting for approval"
//	...
//	detached
//
// The log (adapter diagnostics among it) goes to stderr.
//
// Only an interactive root session (--mode tui, a UI, --role root) may claim
// a pane; try the other flags to see that nothing is sent.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mattn/go-isatty"

	"github.com/panestate/panestate/adapters/progstatus/probe"
	"github.com/panestate/panestate/examples/internal/hostflags"
	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
)

// detachTimeout bounds the release of the pane at the end of the session.
// The registry keeps its own, shorter bound on a release; this one only
// guards against a registry that would not.
const detachTimeout = 5 * time.Second

// maxLine is the longest script line accepted.
const maxLine = 1 << 20

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}

// run is the whole program, with its inputs and outputs as parameters so
// that tests can run it in-process. env is the environment the registry
// sees (os.Environ form). It returns the exit status: 0 at the end of the
// input (bad lines included, and whatever the workspace did), 1 when the
// session could not run (the script cannot be opened or read), 2 for bad
// flags.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
	// The log and our own error lines share stderr; the adapters log from
	// their own goroutines, so every write goes through one lock.
	stderr = &lockedWriter{w: stderr}

	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := hostflags.Register(fs)
	script := fs.String("script", "", "read the session from `file` instead of stdin")
	logLevel := fs.String("log-level", "warn", "log `level` on stderr: trace, debug, info, warn, error or off")
	verbose := fs.Bool("v", false, "print each op and the pane state it leads to")
	quiet := fs.Bool("q", false, "do not say at start which workspace is listening")
	probeTTY := fs.Bool("probe", false, "ask the terminal whether it reads OSC 7501 before starting (the progstatus adapter)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "chat: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	level := hclog.LevelFromString(*logLevel)
	if level == hclog.NoLevel {
		fmt.Fprintf(stderr, "chat: unknown log level %q\n", *logLevel)
		return 2
	}
	log := hclog.New(&hclog.LoggerOptions{Name: host.App, Level: level, Output: stderr})
	opts, err := host.Options(env, log)
	if err != nil {
		fmt.Fprintf(stderr, "chat: %v\n", err)
		return 2
	}
	// Hand the terminal to the registry, for the progress indicator on the
	// tab (adapters/terminal), only when stdout is one.
	if f, ok := stdout.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		opts.Terminal = f
		// The probe owns the terminal's input for a moment, so it runs
		// before anything reads it, and hands its answer to the progstatus
		// adapter in the environment the registry gives the adapters.
		if *probeTTY {
			res, err := probe.Run(ctx, "", 0)
			if err != nil {
				fmt.Fprintf(stderr, "chat: probe: %v\n", err)
			} else {
				if opts.Env == nil {
					opts.Env = os.Environ()
				}
				opts.Env = append(slices.Clip(opts.Env), res.Env())
			}
		}
	}

	input, name := stdin, "stdin"
	if *script != "" {
		f, err := os.Open(*script)
		if err != nil {
			fmt.Fprintf(stderr, "chat: %v\n", err)
			return 1
		}
		defer f.Close()
		input, name = f, *script
	}

	// This is all a chat service does to report its state: build a
	// registry, attach it to the session store it feeds, detach at the end.
	reg, err := registry.New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "chat: %v\n", err)
		return 2
	}
	store := session.NewStore()
	if err := reg.Attach(ctx, store); err != nil {
		fmt.Fprintf(stderr, "chat: %v\n", err)
		return 1
	}
	// Ctrl-C or a kill releases the pane, then ends the process as the
	// signal would have. This is the guide's second choice (a host with a
	// signal handler of its own uses signal.NotifyContext): the chat has
	// none, and its input is a blocking read that no context interrupts.
	defer reg.DetachOnSignal()()
	if !*quiet {
		fmt.Fprintf(stderr, "chat: %s\n", listening(reg.Explain()))
	}

	p := &player{store: store, name: name, stderr: stderr}
	if *verbose {
		p.stdout = stdout
	}
	status := 0
	if err := p.play(ctx, input); err != nil {
		fmt.Fprintf(stderr, "chat: %v\n", err)
		status = 1
	}

	// The registry bounds the release itself, whatever dctx (a hung
	// workspace costs its 1.5 s release budget; BenchmarkQuitWithAHungWorkspace);
	// detachTimeout only bounds waiting for a Detach already in progress
	// (a signal's). A failed release is the
	// workspace's problem, already logged as a diagnostic: say so, and
	// still exit 0.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), detachTimeout)
	defer cancel()
	if err := reg.Detach(dctx); err != nil {
		fmt.Fprintf(stderr, "chat: detached, but the workspace was not released cleanly: %v\n", err)
	}
	if p.stdout != nil {
		fmt.Fprintln(p.stdout, "detached")
	}
	return status
}

// player feeds script lines into a session store.
type player struct {
	store  *session.Store
	name   string    // the script's name in error messages
	stdout io.Writer // nil unless -v
	stderr io.Writer
}

// errQuit ends the script early (the quit op).
var errQuit = errors.New("quit")

// play applies every line of r to the store. A bad line is reported and
// skipped; play returns an error only when r cannot be read or ctx ends.
func (p *player) play(ctx context.Context, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		op, err := p.apply(ctx, line)
		if errors.Is(err, errQuit) {
			p.show(n, op)
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			if op != "" {
				err = fmt.Errorf("%s: %w", op, err)
			}
			fmt.Fprintf(p.stderr, "chat: %s:%d: %v\n", p.name, n, err)
			continue
		}
		if op != "sleep" {
			p.show(n, op)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", p.name, n+1, err)
	}
	return nil
}

// show prints, with -v, the op of line n and the pane state it leads to.
func (p *player) show(n int, op string) {
	if p.stdout == nil {
		return
	}
	if r, ok := reducer.Reduce(p.store.Snapshot()); ok {
		fmt.Fprintf(p.stdout, "line %d: %s -> %s\n", n, op, r)
	} else {
		fmt.Fprintf(p.stdout, "line %d: %s -> (no new state: workflows unknown)\n", n, op)
	}
}

// Each op's fields. Lines are decoded strictly into the op's own struct, so
// a misspelt or misplaced field is an error, not silently ignored.
type (
	opLine struct {
		Op string `json:"op"`
	}
	phaseLine struct {
		Op    string `json:"op"`
		Phase string `json:"phase"`
	}
	promptLine struct {
		Op   string `json:"op"`
		ID   string `json:"id"`
		Kind string `json:"kind"` // prompt_start only
	}
	workflowsLine struct {
		Op           string `json:"op"`
		Availability string `json:"availability"`
		Roots        []struct {
			ID             string `json:"id"`
			Status         string `json:"status"`
			NeedsAttention bool   `json:"needs_attention"`
		} `json:"roots"`
	}
	tasksLine struct {
		Op      string `json:"op"`
		Running *int   `json:"running"`
	}
	identityLine struct {
		Op          string       `json:"op"`
		SessionID   string       `json:"session_id"`
		SessionPath string       `json:"session_path"`
		Resume      session.Argv `json:"resume"` // a JSON array of words
	}
	sleepLine struct {
		Op string `json:"op"`
		MS *int   `json:"ms"`
	}
)

// maxSleep bounds the sleep op.
const maxSleep = time.Minute

// apply decodes one line and applies it. It returns the op's name.
func (p *player) apply(ctx context.Context, line []byte) (string, error) {
	var head opLine
	if err := json.Unmarshal(line, &head); err != nil {
		return "", fmt.Errorf("not a JSON object with an op: %w", err)
	}
	s := p.store
	switch head.Op {
	case "agent_start", "agent_settled", "quit":
		if err := strict(line, &opLine{}); err != nil {
			return head.Op, err
		}
		switch head.Op {
		case "agent_start":
			s.AgentStart()
		case "agent_settled":
			s.AgentSettled()
		case "quit":
			return head.Op, errQuit
		}
	case "phase":
		var v phaseLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		ph, err := session.ParsePhase(v.Phase)
		if err != nil {
			return head.Op, err
		}
		s.SetPhase(ph)
	case "prompt_start", "prompt_end":
		var v promptLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		if v.ID == "" {
			return head.Op, errors.New(`missing "id"`)
		}
		if head.Op == "prompt_end" {
			if v.Kind != "" {
				return head.Op, errors.New(`prompt_end takes no "kind"`)
			}
			s.PromptEnd(v.ID)
			break
		}
		kind, err := session.ParsePromptKind(v.Kind)
		if err != nil {
			return head.Op, err
		}
		s.PromptStart(v.ID, kind)
	case "workflows":
		var v workflowsLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		avail, err := session.ParseAvailability(v.Availability)
		if err != nil {
			return head.Op, err
		}
		roots := make([]session.Root, 0, len(v.Roots))
		for _, r := range v.Roots {
			st, err := session.ParseWorkflowStatus(r.Status)
			if err != nil {
				return head.Op, fmt.Errorf("root %q: %w", r.ID, err)
			}
			roots = append(roots, session.Root{ID: r.ID, Status: st, NeedsAttention: r.NeedsAttention})
		}
		s.SetWorkflows(avail, roots)
	case "tasks":
		var v tasksLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		if v.Running == nil || *v.Running < 0 {
			return head.Op, errors.New(`"running" must be a number of tasks, 0 or more`)
		}
		s.SetTasks(*v.Running)
	case "identity":
		var v identityLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		s.SetIdentity(session.Identity{ID: v.SessionID, Path: v.SessionPath, Resume: v.Resume})
	case "sleep":
		var v sleepLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		d := time.Duration(0)
		if v.MS != nil {
			d = time.Duration(*v.MS) * time.Millisecond
		}
		if v.MS == nil || d < 0 || d > maxSleep {
			return head.Op, fmt.Errorf(`"ms" must be a number of milliseconds from 0 to %d`, maxSleep.Milliseconds())
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return head.Op, ctx.Err()
		}
	case "":
		return "", errors.New(`missing "op"`)
	default:
		return "", fmt.Errorf("unknown op %q", head.Op)
	}
	return head.Op, nil
}

// strict decodes a line (already known to hold exactly one JSON value) into
// v, refusing fields v does not have.
func strict(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// listening says which workspaces an attached registry reports to, or that
// none does and why. It reads Explain's Name, Lifecycle, Why and EnabledBy.
func listening(e registry.Explanation) string {
	var active, why []string
	for _, a := range e.Adapters {
		switch {
		case a.Lifecycle == registry.LifecycleActive:
			active = append(active, a.Name)
		case !a.Enabled && fmt.Sprint(a.EnabledBy) == "default":
			// Off unless selected (noop): not a reason anyone looks for.
		case a.Why != "":
			if strings.HasPrefix(a.Why, a.Name+": ") {
				why = append(why, a.Why)
			} else {
				why = append(why, a.Name+": "+a.Why)
			}
		default:
			why = append(why, fmt.Sprintf("%s: %s", a.Name, a.Lifecycle))
		}
	}
	if len(active) > 0 {
		return "reporting to " + strings.Join(active, ", ")
	}
	if len(why) == 0 {
		return "no workspace is listening (no adapter is enabled)"
	}
	return "no workspace is listening (" + strings.Join(why, "; ") + ")"
}
