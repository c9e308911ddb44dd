// Command customadapter shows how to add a workspace to panestate: a
// complete adapter in one file (title.go) that shows the agent's state in
// the terminal's title, added with one line, while the chat service
// code stays exactly what it is for Herdr.
//
// # Running it
//
//	go run ./examples/customadapter                   # show the escape sequences
//	go run ./examples/customadapter --raw --pause 1s  # retitle this terminal for real
//
// It plays a short session (a turn with a tool approval) and prints each
// title the adapter sets, made visible:
//
//	# attach: a new session is idle
//	"\x1b]2;chat: idle\a"
//	# the agent starts a turn
//	"\x1b]2;chat: working\a"
//	# a tool asks for approval
//	"\x1b]2;chat: blocked - Waiting for approval\a"
//	...
//
// # What to read
//
//   - title.go: the driver and the adapter, with the optional interfaces
//     that make sense for a terminal title (opt-in by default, a settings
//     key, a check that says why it does not apply, Release that gives the
//     title back, Explain).
//   - drivers, below: the one line that adds it to the built-in drivers.
//   - run: an ordinary chat service. It turns the adapter on the way a user
//     would, with "title": {"enabled": true} in its settings file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// drivers are the registry's drivers: the built-in ones and "title". The
// line that sets d["title"] is all it takes to add the adapter; the host
// passes the map as registry.Options.Drivers.
func drivers() map[string]adapter.Driver {
	d := registry.Builtin()
	d["title"] = TitleDriver{Out: terminal}
	return d
}

// terminal is where the title adapter writes: this program's terminal
// (see screen). There is one per process, like the terminal itself.
var terminal = new(screen)

// showTimeout bounds the wait for each title to be written.
const showTimeout = 5 * time.Second

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Environ()))
}

// run plays the session, writing the titles and the narration to stdout,
// with env as the environment the adapters see. It returns the exit
// status: 0, 1 when something failed, 2 for bad flags. Calls must not
// overlap: they share the terminal.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, env []string) int {
	fs := flag.NewFlagSet("customadapter", flag.ContinueOnError)
	fs.SetOutput(stderr)
	raw := fs.Bool("raw", false, "write the escape sequences as they are, retitling this terminal")
	pause := fs.Duration("pause", 0, "pause after each step, to watch the title change (try 1s with --raw)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	shown := terminal.use(stdout, *raw)
	defer terminal.use(nil, false)
	if err := play(ctx, env, shown, *pause); err != nil {
		fmt.Fprintf(stderr, "customadapter: %v\n", err)
		return 1
	}
	return 0
}

// play is the chat service: nothing in it knows about titles.
func play(ctx context.Context, env []string, shown <-chan struct{}, pause time.Duration) error {
	// The user's settings file turns the adapter on (it is off by default).
	// A throwaway home keeps the demo away from your real settings.
	home, err := os.MkdirTemp("", "customadapter-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	settingsFile := filepath.Join(home, ".chat", "agent", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settingsFile), 0o700); err != nil {
		return err
	}
	// Only for this demo: run inside Herdr or tmux, it must not claim the
	// pane, so the file turns those adapters off too.
	if err := os.WriteFile(settingsFile, []byte(`{"title": {"enabled": true}, "herdr": {"enabled": false}, "tmux": {"enabled": false}, "progstatus": {"enabled": false}}`), 0o600); err != nil {
		return err
	}

	reg, err := registry.New(registry.Options{
		App:            "chat",
		Host:           session.Host{Interactive: true, Root: true},
		Env:            env,
		Settings:       settings.Options{Home: home},
		StaticSettings: true,
		Drivers:        drivers(),
	})
	if err != nil {
		return err
	}
	store := session.NewStore()

	// wait waits until the adapter has written the title for a step. Only
	// the demo does this, so that each title shows; a chat service never
	// waits for its adapters.
	wait := func() error {
		t := time.NewTimer(showTimeout)
		defer t.Stop()
		select {
		case <-shown:
		case <-t.C:
			return errors.New("the title adapter wrote nothing; is it enabled? (see registry.Explain)")
		case <-ctx.Done():
			return ctx.Err()
		}
		if pause > 0 {
			time.Sleep(pause)
		}
		return nil
	}

	terminal.say("attach: a new session is idle")
	if err := reg.Attach(ctx, store); err != nil {
		return err
	}
	steps := []struct {
		say string
		do  func()
	}{
		{"the agent starts a turn", store.AgentStart},
		{"a tool asks for approval", func() { store.PromptStart("p1", session.PromptApproval) }},
		{"the person approves", func() { store.PromptEnd("p1") }},
		{"the agent settles", store.AgentSettled},
	}
	for _, s := range steps {
		if err := wait(); err != nil {
			return errors.Join(err, reg.Detach(context.WithoutCancel(ctx)))
		}
		terminal.say(s.say)
		s.do()
	}
	if err := wait(); err != nil {
		return errors.Join(err, reg.Detach(context.WithoutCancel(ctx)))
	}
	terminal.say("detach: the title is given back")
	return reg.Detach(context.WithoutCancel(ctx))
}

// screen stands for the terminal. By default it shows each escape sequence
// written to it as a quoted line, so you can read it; with --raw it passes
// the bytes through and your terminal's title changes. Each write is
// announced on the channel use returns. All methods are safe for
// concurrent use.
type screen struct {
	mu    sync.Mutex
	out   io.Writer // nil: writes are dropped
	raw   bool
	shown chan struct{}
}

// use directs the screen to out and returns the channel that announces
// writes.
func (s *screen) use(out io.Writer, raw bool) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out, s.raw, s.shown = out, raw, make(chan struct{}, 1)
	return s.shown
}

// Write is what the title adapter calls.
func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out == nil {
		return len(p), nil
	}
	var err error
	if s.raw {
		_, err = s.out.Write(p)
	} else {
		_, err = fmt.Fprintf(s.out, "%q\n", p)
	}
	select {
	case s.shown <- struct{}{}:
	default: // already announced and not yet seen
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// say prints a line of narration.
func (s *screen) say(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out != nil {
		fmt.Fprintf(s.out, "# %s\n", line)
	}
}
