package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/panestate/panestate/internal/events"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
)

// eventsDetachTimeout backs up the registry's own bound on the release.
const eventsDetachTimeout = 5 * time.Second

// runEvents is `panestate events`: the events protocol (package events) on
// stdin, reported for the pane it runs in until the end of the input or a
// quit op, then released. Exit status: 0 at the end of the input (bad
// lines and workspace failures included), 1 when stdin cannot be read or
// reporting cannot attach, 2 for bad flags.
func runEvents(args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
	fs := flag.NewFlagSet("panestate events", flag.ContinueOnError)
	fs.SetOutput(stderr)
	app := fs.String("app", appName, "application `name`: settings in ~/.NAME/agent/settings.json, Herdr source custom:NAME")
	verbose := fs.Bool("v", false, "print each op and the pane state it leads to")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "panestate: events: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	opts := registry.Options{
		App:  *app,
		Host: session.Host{Interactive: true, Root: true},
		Env:  env,
	}
	// Hand the terminal to the registry (the tab's progress indicator) only
	// when stdout is one.
	if f, ok := stdout.(*os.File); ok && isTerminal(f) {
		opts.Terminal = f
	}
	reg, err := registry.New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "panestate: events: %v\n", err)
		return 2
	}
	ctx := context.Background()
	store := session.NewStore()
	if err := reg.Attach(ctx, store); err != nil {
		fmt.Fprintf(stderr, "panestate: events: %v\n", err)
		return 1
	}
	defer reg.DetachOnSignal()()
	p := &events.Player{Store: store, Name: "stdin", Prefix: "panestate: events", Stderr: stderr}
	if *verbose {
		p.Verbose = stdout
	}
	status := 0
	if err := p.Play(ctx, stdin); err != nil {
		fmt.Fprintf(stderr, "panestate: events: %v\n", err)
		status = 1
	}
	dctx, cancel := context.WithTimeout(ctx, eventsDetachTimeout)
	defer cancel()
	if err := reg.Detach(dctx); err != nil {
		fmt.Fprintf(stderr, "panestate: events: released, but not cleanly: %v\n", err)
	}
	return status
}

// isTerminal reports whether f looks like a terminal (a character device).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
