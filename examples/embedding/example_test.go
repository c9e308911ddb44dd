package embedding_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// chat is the chat service of these examples: its main loop runs until ctx
// ends (the person quits, or a signal arrives).
type chat struct {
	projectDir string
	isTrusted  func(root string) bool
	// run plays the session, feeding the store; it returns when ctx ends.
	run func(ctx context.Context, store *session.Store) error
}

// serve is the README's "Embedding" snippet: the whole integration, signals
// included.
func (c chat) serve(ctx context.Context) error {
	projectDir, isTrusted, runChat := c.projectDir, c.isTrusted, c.run // the README's names

	// Ctrl-C and SIGTERM end ctx; the deferred Detach below then releases
	// the pane before the program returns from main.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	store := session.NewStore() // feed it: AgentStart, PromptStart, SetWorkflows, AgentSettled...

	reg, err := registry.New(registry.Options{
		App:  "mychat", // ~/.mychat/agent/settings.json; Herdr source custom:mychat
		Host: session.Host{Interactive: true, Root: true},
		Settings: settings.Options{
			ProjectRoot: projectDir, // <project>/.mychat/settings.json, read only when trusted
			Trust:       func(root string) (bool, error) { return isTrusted(root), nil },
		},
	})
	if err != nil {
		return err
	}
	if err := reg.Attach(ctx, store); err != nil { // outside any workspace this starts nothing
		return err
	}
	// Detach drains, releases the pane and waits; it bounds itself (a hung
	// workspace costs its 1.5 s release budget), and its error is a
	// diagnostic, never the chat's failure.
	defer func() {
		if err := reg.Detach(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "mychat: pane not released cleanly:", err)
		}
	}()

	return runChat(ctx, store)
}

// The README's snippet, run outside any workspace: Attach starts nothing,
// the session plays, Detach returns.
func Example_readme() {
	project, err := os.MkdirTemp("", "mychat-project-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(project)

	c := chat{
		projectDir: project,
		isTrusted:  func(string) bool { return false },
		run: func(ctx context.Context, store *session.Store) error {
			store.AgentStart()
			store.PromptStart("tool-1", session.PromptApproval)
			store.PromptEnd("tool-1")
			store.AgentSettled()
			fmt.Println("session played")
			return nil
		},
	}
	if err := c.serve(context.Background()); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println("detached")
	// Output:
	// session played
	// detached
}

// Section 1 of docs/embedding.md: one store per root session, fed from the
// chat service's event handlers.
func Example_feed() {
	store := session.NewStore()

	id, err := session.Identity{ID: "abc", Path: "/home/me/.mychat/sessions/abc.jsonl"}.
		WithResume("mychat", "--resume", "abc") // Herdr 0.9.2+ can reopen the session
	if err != nil {
		panic(err)
	}
	store.SetIdentity(id)
	store.AgentStart()                                     // the agent starts a turn
	store.PromptStart("tool-1", session.PromptApproval)    // a tool approval prompt opens
	store.PromptEnd("tool-1")                              // ... and closes
	store.SetTasks(1)                                      // a background task runs
	store.SetWorkflows(session.Workflows{Executing: true}) // a root workflow runs a stage
	store.SetWorkflows(session.Workflows{})                // ... and completes
	store.SetTasks(0)
	store.AgentSettled() // the turn and everything it started are over

	s := store.Snapshot()
	fmt.Println(s.Phase == session.PhaseIdle, s.Tasks, s.Identity.Resume())
	// Output:
	// true 0 [mychat --resume abc]
}

// Section 2 of docs/embedding.md: the host context. Only an interactive
// root session may claim a pane; this print run inside a pane claims
// nothing, and Explain shows the host as it is encoded here.
func Example_host() {
	mode, hasUI, isSubagent := "print", false, false // what the chat service knows of its run
	host := session.Host{
		Interactive: mode == "tui" && hasUI, // print, JSON and RPC runs never claim
		Root:        !isSubagent,            // subagents and workflow stages never claim
		Identity:    session.Identity{ID: "abc"},
	}
	out, err := json.Marshal(host)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output: {"interactive":false,"root":true,"identity":{"id":"abc"}}
}

// Section 3 of docs/embedding.md, second choice: a host that handles no
// signal itself lets DetachOnSignal release the pane on SIGINT or SIGTERM
// and then end the process as the signal would have.
func Example_detachOnSignal() {
	reg, err := registry.New(registry.Options{
		App:  "mychat",
		Host: session.Host{Interactive: true, Root: true},
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := reg.Attach(ctx, session.NewStore()); err != nil {
		panic(err)
	}
	defer reg.Detach(ctx)
	defer reg.DetachOnSignal()()

	fmt.Println("attached")
	// Output:
	// attached
}

// Section 3 of docs/embedding.md: a context that is already done (the
// host's signal context, after the signal) still gets one release attempt.
func Example_detachWithDoneContext() {
	reg, err := registry.New(registry.Options{
		App:  "mychat",
		Host: session.Host{Interactive: true, Root: true},
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := reg.Attach(ctx, session.NewStore()); err != nil {
		panic(err)
	}
	cancel() // the signal arrived
	// The release still gets the whole budget (Options.ReleaseTimeout):
	// ctx bounds only the wait for a Detach already in progress. Outside a
	// workspace there is nothing to release.
	fmt.Println(reg.Detach(ctx))
	// Output:
	// <nil>
}

// Section 3 of docs/embedding.md, the terminal tab: the host hands over
// the terminal its TUI draws on, and only when it is one. (Compiled, not
// run: what it shows depends on the terminal the tests run in.)
func Example_terminal() {
	opts := registry.Options{
		App:  "mychat",
		Host: session.Host{Interactive: true, Root: true},
	}
	// A TUI that writes from several goroutines hands over a writer that
	// takes its own output lock instead of os.Stdout itself.
	if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		opts.Terminal = os.Stdout
	}
	reg, err := registry.New(opts)
	if err != nil {
		panic(err)
	}
	fmt.Println(reg.Explain())
}

// Section 4 of docs/embedding.md: tool subprocesses get a scrubbed
// environment, so a nested agent never claims or releases this pane.
func Example_scrubEnv() {
	env := []string{"PATH=/usr/bin", "HERDR_ENV=1", "HERDR_PANE_ID=w1:p1", "HOME=/home/me"}

	reg, err := registry.New(registry.Options{App: "mychat"})
	if err != nil {
		panic(err)
	}
	cmd := exec.Command("true")
	cmd.Env = reg.ScrubEnv(env) // a real host passes os.Environ()
	fmt.Println(cmd.Env)
	// Output:
	// [PATH=/usr/bin HOME=/home/me]
}

// Section 5 of docs/embedding.md: the settings files and the trust
// decision. The project file counts only when Trust says yes.
func Example_settings() {
	project, err := os.MkdirTemp("", "mychat-project-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(project)

	reg, err := registry.New(registry.Options{
		App:  "mychat",
		Host: session.Host{Interactive: true, Root: true},
		Settings: settings.Options{
			ProjectRoot: project,
			Trust:       func(root string) (bool, error) { return root == project, nil },
		},
	})
	if err != nil {
		panic(err)
	}
	for _, f := range reg.Explain().Files {
		fmt.Println(f.Layer, f.Condition)
	}
	// Output:
	// global missing
	// project missing
}
