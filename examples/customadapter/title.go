package main

// This file is a complete panestate adapter: it shows the agent's state in
// the terminal's title. In a project of its own it would be package title,
// with title.Driver and title.Adapter, and a host would add it to
// registry.Builtin() with the one line in main.go's drivers.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"

	"github.com/panestate/panestate/adapter"
)

// TitleDriver opens adapters that set the terminal's title (OSC 2) to the
// agent's state: "chat: working", "chat: blocked - Waiting for approval",
// "chat: idle".
//
// The driver holds what the registry cannot give: where the title goes. What
// the user may change lives in the settings section "title" instead, so that
// a settings edit can reopen the adapter:
//
//	{"title": {"enabled": true, "prefix": "mychat"}}
//
// The zero value is not usable: Out must be set.
type TitleDriver struct {
	// Out is the terminal the escape sequences are written to.
	Out io.Writer
}

// Compile-time guards, one per interface: the build breaks if a method's
// signature drifts.
var (
	_ adapter.Driver        = TitleDriver{}
	_ adapter.SettingsOwner = TitleDriver{} // off unless the settings turn it on; owns "prefix"
	_ adapter.Checker       = TitleDriver{} // Explain can say why it does not apply
)

// Settings returns false, and the keys the adapter reads besides "enabled";
// the settings layer warns about any other key in the "title" section. An
// adapter that rewrites something the user sees everywhere (the title of
// every terminal the agent runs in) should be opt-in: it runs only with
// "title": {"enabled": true} in the settings. A workspace adapter that only
// runs inside its own workspace (as Herdr's does) can be on by default
// instead.
func (TitleDriver) Settings() (enabledByDefault bool, keys []string) {
	return false, []string{"prefix"}
}

// Check says what Open would say, without opening anything: whether the
// adapter applies to this process, then whether its settings are good. The
// registry uses it for Explain.
func (TitleDriver) Check(p adapter.Params) error {
	if err := applies(p); err != nil {
		return err
	}
	_, err := titlePrefix(p)
	return err
}

// applies says whether the adapter applies to this process.
func applies(p adapter.Params) error {
	// Only the session the person talks to owns the terminal: a print run,
	// a subagent or a workflow stage must not retitle it.
	if !p.Host.Interactive {
		return fmt.Errorf("title: %w: not an interactive root session: the host is not interactive (a print, JSON or RPC run, or no UI)", adapter.ErrInactive)
	}
	if !p.Host.Root {
		return fmt.Errorf("title: %w: not an interactive root session: the host is not the root session (a subagent or a workflow stage)", adapter.ErrInactive)
	}
	// Read the environment from Params, never from os.Getenv: it was
	// captured once, and tests supply their own.
	if p.Env.Get("TERM") == "dumb" {
		return fmt.Errorf("title: %w: TERM is dumb, the terminal has no title", adapter.ErrInactive)
	}
	return nil
}

// titleSettings is the "title" section of the settings.
type titleSettings struct {
	Prefix *string `json:"prefix"`
}

// Open returns an adapter, or an error wrapping adapter.ErrInactive when the
// adapter does not apply here, or an error for bad settings. It starts
// nothing: the adapter writes only when it is given a report.
func (d TitleDriver) Open(ctx context.Context, p adapter.Params) (adapter.Adapter, error) {
	if err := applies(p); err != nil {
		return nil, err
	}
	prefix, err := titlePrefix(p)
	if err != nil {
		return nil, err
	}
	if d.Out == nil {
		return nil, errors.New("title: TitleDriver.Out is nil")
	}
	return &TitleAdapter{out: d.Out, prefix: prefix}, nil
}

// titlePrefix decodes the settings section into the title's prefix, for
// Open and Check alike.
func titlePrefix(p adapter.Params) (string, error) {
	var s titleSettings
	if len(bytes.TrimSpace(p.Settings)) > 0 {
		if err := json.Unmarshal(p.Settings, &s); err != nil {
			return "", fmt.Errorf("title: settings: %w", err)
		}
	}
	prefix := p.App
	if s.Prefix != nil {
		prefix = *s.Prefix
	}
	// The prefix goes into an escape sequence: a control character in it
	// could end the sequence early and start another one.
	if strings.ContainsFunc(prefix, unicode.IsControl) || len(prefix) > 64 {
		return "", fmt.Errorf("title: settings: prefix %q must be at most 64 characters, without control characters", prefix)
	}
	return prefix, nil
}

// TitleAdapter shows reports in the terminal's title. Its methods are safe
// for concurrent use (the registry calls Report from one goroutine, but
// Details may run at the same time). After Close, Report and Release return
// adapter.ErrClosed.
type TitleAdapter struct {
	mu     sync.Mutex
	out    io.Writer
	prefix string
	title  string // the title last written
	writes int
	closed bool
}

var (
	_ adapter.Adapter  = (*TitleAdapter)(nil)
	_ adapter.Releaser = (*TitleAdapter)(nil) // gives the title back
	_ adapter.Closer   = (*TitleAdapter)(nil)
	_ adapter.Detailer = (*TitleAdapter)(nil) // shows the current title in Explain
)

// Report sets the title to r's state and, if any, its message. r.Reason is
// internal and never shown; r.Message is one of a few fixed texts, so
// nothing the agent says can reach the title.
func (a *TitleAdapter) Report(ctx context.Context, r adapter.Report) error {
	title := a.prefix + ": " + r.State.String()
	if m := r.Message.String(); m != "" {
		title += " - " + m
	}
	return a.set(ctx, title)
}

// Release clears the title when reporting stops for good. It is Release, not
// Close, that does it: the registry also closes an adapter when a settings
// change replaces it with a new one, and the new one sets its own title.
// (An empty OSC 2 title makes most terminals show their default; saving and
// restoring the user's own title, XTWINOPS 22/23, is not supported widely
// enough to rely on.)
func (a *TitleAdapter) Release(ctx context.Context) error {
	return a.set(ctx, "")
}

// set writes the OSC 2 sequence for title: ESC ] 2 ; title BEL.
func (a *TitleAdapter) set(ctx context.Context, title string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return adapter.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("title: %w", err)
	}
	if _, err := io.WriteString(a.out, "\x1b]2;"+title+"\a"); err != nil {
		return fmt.Errorf("title: %w", err) // the registry will try again
	}
	a.title = title
	a.writes++
	return nil
}

// Close marks the adapter closed. It holds no goroutine, timer or file, so
// there is nothing else to stop. It is idempotent.
func (a *TitleAdapter) Close(context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	return nil
}

// Details returns the current title and the number of writes, for the
// registry's Explain.
func (a *TitleAdapter) Details() map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return map[string]string{"title": fmt.Sprintf("%q", a.title), "writes": fmt.Sprint(a.writes)}
}
