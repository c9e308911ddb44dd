package wezterm

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/builtin"
)

// The variables, in the order a report sets them.
const (
	VarState   = "panestate_state"
	VarMessage = "panestate_message"
	VarAgent   = "panestate_agent"
)

// Driver opens WezTerm user-variable adapters. Its zero value is ready to
// use and safe for concurrent use.
type Driver struct{}

var (
	_ adapter.Driver        = Driver{}
	_ adapter.SettingsOwner = Driver{}
	_ adapter.Checker       = Driver{}
)

// Settings returns true and no keys: on where WezTerm is detected, and
// wezterm.enabled is the section's only key.
func (Driver) Settings() (enabledByDefault bool, keys []string) { return true, nil }

// Check returns what Open would say, opening nothing.
func (Driver) Check(p adapter.Params) error {
	_, _, err := activation(p)
	return err
}

// activation says why the adapter applies, and whether to wrap for tmux,
// or an error wrapping adapter.ErrInactive.
func activation(p adapter.Params) (why string, tmux bool, err error) {
	inactive := func(format string, args ...any) (string, bool, error) {
		return "", false, fmt.Errorf("wezterm: %w: "+format, append([]any{adapter.ErrInactive}, args...)...)
	}
	if p.Terminal == nil {
		return inactive("the host handed over no terminal (registry.Options.Terminal is nil)")
	}
	if err := builtin.CheckHost(p.Host); err != nil {
		return "", false, fmt.Errorf("wezterm: %w", err)
	}
	env := p.Env
	switch {
	case env.Get("HERDR_ENV") == "1":
		return inactive("inside a Herdr pane (HERDR_ENV=1), which reads no user variables; the herdr adapter reports there")
	case env.Get("TERM") == "dumb":
		return inactive("TERM is dumb: the terminal interprets no escape sequence, so it would print this one")
	case env.Get("TMUX") != "":
		if p.Forced {
			return "wezterm.enabled is true", true, nil
		}
		return inactive("inside tmux (TMUX is set), which drops OSC 1337 unless wrapped; set wezterm.enabled to true, and tmux's allow-passthrough to on, where tmux runs in WezTerm")
	case env.Get("STY") != "":
		if p.Forced {
			return "wezterm.enabled is true", false, nil
		}
		return inactive("inside GNU screen (STY is set); set wezterm.enabled to true to force it")
	case env.Get("TERM_PROGRAM") == "WezTerm":
		return "WezTerm (TERM_PROGRAM=WezTerm)", false, nil
	case env.Get("WEZTERM_PANE") != "" || env.Get("WEZTERM_EXECUTABLE") != "":
		return "WezTerm (WEZTERM_PANE or WEZTERM_EXECUTABLE is set)", false, nil
	case p.Forced:
		return "wezterm.enabled is true", false, nil
	}
	return inactive("WezTerm was not detected (TERM_PROGRAM is not WezTerm; WEZTERM_PANE and WEZTERM_EXECUTABLE are unset); " +
		"over ssh, where they are not forwarded, set wezterm.enabled to true")
}

// Open returns an adapter that writes to p.Terminal, or an error wrapping
// adapter.ErrInactive that says why it does not apply. It writes nothing
// and starts nothing.
func (Driver) Open(ctx context.Context, p adapter.Params) (adapter.Adapter, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("wezterm: open: %w", err)
	}
	why, tmux, err := activation(p)
	if err != nil {
		return nil, err
	}
	return &Adapter{out: p.Terminal, why: why, tmux: tmux, agent: p.App}, nil
}

// Adapter sets the pane's user variables. Its methods are safe for
// concurrent use; after Close, Report and Release return
// adapter.ErrClosed.
type Adapter struct {
	out   io.Writer
	why   string
	tmux  bool
	agent string

	mu     sync.Mutex
	shown  map[string]string // each variable's value as last set
	closed bool
	busy   chan struct{} // closed when the Write under way returns; nil when none
	writes int
}

var (
	_ adapter.Adapter  = (*Adapter)(nil)
	_ adapter.Releaser = (*Adapter)(nil)
	_ adapter.Closer   = (*Adapter)(nil)
	_ adapter.Detailer = (*Adapter)(nil)
)

// Sequence returns the sequence that sets variable name to value, wrapped
// for tmux's passthrough when tmux is true.
func Sequence(name, value string, tmux bool) []byte {
	seq := "\x1b]1337;SetUserVar=" + name + "=" + base64.StdEncoding.EncodeToString([]byte(value)) + "\a"
	if tmux {
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return []byte(seq)
}

// Report sets panestate_state, panestate_message and panestate_agent to
// r's state, r's fixed message and the application's name, each that
// changed in its own Write. With ctx done, or the report withdrawn, before
// a Write starts, it writes nothing more and returns the error.
func (a *Adapter) Report(ctx context.Context, r adapter.Report) error {
	return a.set(ctx, true, r.State.String(), r.Message.String(), a.agent)
}

// Release sets the three variables to "".
func (a *Adapter) Release(ctx context.Context) error { return a.set(ctx, false, "", "", "") }

// set brings the variables to the values given, in order.
func (a *Adapter) set(ctx context.Context, withdrawable bool, state, message, agent string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return adapter.ErrClosed
	}
	var withdrawn <-chan struct{}
	if withdrawable {
		withdrawn = adapter.Withdrawn(ctx)
	}
	for _, v := range [...]struct{ name, value string }{{VarState, state}, {VarMessage, message}, {VarAgent, agent}} {
		if old, ok := a.shown[v.name]; ok && old == v.value {
			continue
		}
		if err := a.writeLocked(ctx, withdrawn, Sequence(v.name, v.value, a.tmux)); err != nil {
			return err
		}
		if a.shown == nil {
			a.shown = make(map[string]string, 3)
		}
		a.shown[v.name] = v.value
	}
	return nil
}

// writeLocked waits for the Write under way, then writes seq in one
// Write on a goroutine of its own, so that a terminal that stopped
// reading holds up that goroutine and not the caller beyond ctx. a.mu is
// held.
func (a *Adapter) writeLocked(ctx context.Context, withdrawn <-chan struct{}, seq []byte) error {
	if a.busy != nil {
		select {
		case <-a.busy:
			a.busy = nil
		case <-withdrawn:
			return fmt.Errorf("wezterm: %w", adapter.ErrWithdrawn)
		case <-ctx.Done():
			return fmt.Errorf("wezterm: the terminal has not taken the previous sequence: %w", ctx.Err())
		}
	}
	select {
	case <-withdrawn:
		return fmt.Errorf("wezterm: %w", adapter.ErrWithdrawn)
	default:
	}
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		_, err = a.out.Write(seq)
	}()
	a.busy = done
	select {
	case <-done:
		a.busy = nil
	case <-ctx.Done():
		return fmt.Errorf("wezterm: the terminal is not taking the sequence: %w", ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("wezterm: write: %w", err)
	}
	a.writes++
	return nil
}

// Close marks the adapter closed and waits, bounded by ctx, for a Write
// under way. It writes nothing.
func (a *Adapter) Close(ctx context.Context) error {
	a.mu.Lock()
	a.closed = true
	busy := a.busy
	a.mu.Unlock()
	if busy != nil {
		select {
		case <-busy:
		case <-ctx.Done():
			return fmt.Errorf("wezterm: close: the terminal has not taken the last sequence: %w", ctx.Err())
		}
	}
	return nil
}

// Details says why the adapter is on, the variables as last set, and the
// number of writes.
func (a *Adapter) Details() map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := map[string]string{"active because": a.why, "writes": fmt.Sprint(a.writes)}
	for _, name := range []string{VarState, VarMessage, VarAgent} {
		m[name] = fmt.Sprintf("%q", a.shown[name])
	}
	if a.tmux {
		m["tmux"] = "sequences wrapped in DCS passthrough; tmux forwards them only with `set -g allow-passthrough on`"
	}
	return m
}
