package tmux_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/tmux"
	"github.com/panestate/panestate/session"
)

// Outside a tmux pane the adapter does not apply, starts nothing, and says
// why; the registry shows that reason in Explain.
func Example() {
	host := session.Host{Interactive: true, Root: true}
	p := adapter.Params{Name: "tmux", App: "chat", Env: adapter.Env{"PATH=/usr/bin"}, Host: host}
	_, err := tmux.Driver{}.Open(context.Background(), p)
	fmt.Println(errors.Is(err, adapter.ErrInactive))
	fmt.Println(err)

	p.Env = adapter.Env{"TMUX=/tmp/tmux-1000/default,4242,0", "TMUX_PANE=%3", "PATH=/nonexistent"}
	fmt.Println(tmux.Driver{}.Check(p))
	// Output:
	// true
	// tmux: adapter inactive: TMUX is not set (not inside a tmux pane)
	// tmux: adapter inactive: no executable tmux in the captured PATH (relative entries are skipped)
}

// A tool the agent runs keeps TMUX, so its own tmux commands still reach
// the server, but loses TMUX_PANE, so a nested agent cannot take the
// parent's pane.
func ExampleDriver_ScrubEnv() {
	env := adapter.Env{"TMUX=/tmp/tmux-1000/default,4242,0", "TMUX_PANE=%3", "TERM=tmux-256color"}
	fmt.Println(tmux.Driver{}.ScrubEnv(env)) // hosts call Registry.ScrubEnv, which asks every driver
	// Output:
	// [TMUX=/tmp/tmux-1000/default,4242,0 TERM=tmux-256color]
}
