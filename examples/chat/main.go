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
// (session.Identity.WithResume); a workspace that can restart agents (Herdr
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
	"context"
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
	"github.com/panestate/panestate/internal/events"
	"github.com/panestate/panestate/internal/hostflags"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
)

// detachTimeout bounds the release of the pane at the end of the session.
// The registry keeps its own, shorter bound on a release; this one only
// guards against a registry that would not.
const detachTimeout = 5 * time.Second

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
	if f, ok := ctx.Value(detachedKey{}).(func(*registry.Registry)); ok {
		f(reg)
	}
	if p.stdout != nil {
		fmt.Fprintln(p.stdout, "detached")
	}
	return status
}

// detachedKey is the key of a context value that run calls, when set, with
// its registry once it has detached it. The registry keeps an adapter whose
// release did not fit in the release budget (a hung workspace, a loaded
// machine) open for its next Detach: the process's exit ends it when the
// program returns from run, and the tests, which run it in their own
// process, detach it again instead.
type detachedKey struct{}

// player feeds script lines into a session store (package events).
type player struct {
	store  *session.Store
	name   string    // the script's name in error messages
	stdout io.Writer // nil unless -v
	stderr io.Writer
}

// play applies every line of r to the store. A bad line is reported and
// skipped; play returns an error only when r cannot be read or ctx ends.
func (p *player) play(ctx context.Context, r io.Reader) error {
	return (&events.Player{Store: p.store, Name: p.name, Prefix: "chat", Verbose: p.stdout, Stderr: p.stderr}).Play(ctx, r)
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
