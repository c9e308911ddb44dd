package tmux

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/builtin"
	"github.com/panestate/panestate/internal/calls"
	"github.com/panestate/panestate/internal/cmdrun"
	"github.com/panestate/panestate/internal/owner"
)

// Environment variables tmux puts in every pane process.
const (
	// EnvTmux is "<socket path>,<server pid>,<session id>": the server the
	// pane belongs to.
	EnvTmux = "TMUX"
	// EnvPane is the pane's id, "%" and a number (e.g. "%3"), unique for
	// the server's lifetime.
	EnvPane = "TMUX_PANE"
)

// DefaultPrefix is the default of the "prefix" setting: the pane options
// are @panestate_state, @panestate_message and @panestate_agent.
const DefaultPrefix = "panestate"

// DefaultTimeout is the deadline of one tmux call when "timeout" is not
// set; the setting takes a duration string or milliseconds, clamped to
// [cmdrun.MinTimeout, cmdrun.MaxTimeout], as herdr.timeout does.
const DefaultTimeout = cmdrun.DefaultTimeout

// Program is the name of the tmux executable searched for in the captured
// PATH.
const Program = "tmux"

// Errors Open returns outside tmux, built once so that the common "not in
// tmux" answer allocates nothing.
var (
	errTmuxUnset = fmt.Errorf("tmux: %w: %s is not set (not inside a tmux pane)", adapter.ErrInactive, EnvTmux)
	errPaneUnset = fmt.Errorf("tmux: %w: %s is not set (not inside a tmux pane)", adapter.ErrInactive, EnvPane)
	errNoTmux    = fmt.Errorf("tmux: %w: no executable %s in the captured PATH (relative entries are skipped)", adapter.ErrInactive, Program)
)

// Driver opens the tmux adapter. Its zero value is the production driver;
// it has no fields. It is safe for concurrent use.
type Driver struct{}

// Guards: Driver implements the driver interfaces it means to.
var (
	_ adapter.Driver        = Driver{}
	_ adapter.SettingsOwner = Driver{}
	_ adapter.EnvScrubber   = Driver{}
	_ adapter.Checker       = Driver{}
	_ adapter.Previewer     = Driver{}
)

// Settings reports true, and the keys of the adapter's settings section
// besides "enabled": "prefix" and "timeout". Inside an eligible tmux pane
// the adapter runs unless "tmux.enabled" is false.
func (Driver) Settings() (enabledByDefault bool, keys []string) {
	return true, []string{"prefix", "timeout"}
}

// ScrubEnv returns a copy of env without TMUX_PANE, and with TMUX kept
// ([adapter.EnvScrubber]); hosts reach it through Registry.ScrubEnv.
// Without TMUX_PANE the adapter is inactive in a nested agent, which so
// can neither overwrite the parent's state nor unset it; TMUX stays, for
// the tmux-aware tools that find the server with it (docs/tmux.md, "Tool
// subprocesses"). Names are matched without regard to case, as Windows
// does.
func (Driver) ScrubEnv(env adapter.Env) adapter.Env {
	return slices.DeleteFunc(append(adapter.Env{}, env...), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return strings.EqualFold(k, EnvPane)
	})
}

// validPrefix is the "prefix" setting's form: tmux takes almost any user
// option name, but formats give ",", ":", "}", "#" and spaces meanings.
// Checked by hand rather than with a regexp: a compiled regexp costs every
// program that links this package about 0.2 ms and 700 allocations at
// start, which a hook process run per agent event pays.
func validPrefix(s string) bool { return builtin.ValidName(s, 32, "_-") }

// validLabel is the agent label's form: the registry's rule for app names.
// It keeps the value clear of tmux's command separator (an argument ending
// in ";") and of "#", which status formats would read as a style.
func validLabel(s string) bool { return builtin.ValidName(s, 64, "._-") }

// validPaneID is TMUX_PANE's form: "%" and 1 to 10 digits.
func validPaneID(s string) bool {
	_, err := strconv.ParseUint(s[min(1, len(s)):], 10, 64) // digits only, at least one
	return len(s) <= 11 && strings.HasPrefix(s, "%") && err == nil
}

// Open returns an [Adapter] for the tmux pane this process runs in.
//
// It returns an error wrapping [adapter.ErrInactive], naming the failed
// condition, and starts nothing, outside a tmux pane (TMUX not
// "<absolute socket>,<pid>,<session>", TMUX_PANE not "%N"), for a host that
// is not an interactive root session, or with no executable "tmux" in the
// captured PATH. A bad setting, or an app name that cannot be the agent
// label, is a plain error; a timeout outside 100ms..60s is clamped, with
// one invalid_value diagnostic. Open does no I/O besides the PATH search;
// ctx is only checked for cancellation.
func (d Driver) Open(ctx context.Context, p adapter.Params) (adapter.Adapter, error) {
	a, err := d.open(ctx, p)
	if err != nil {
		return nil, err // not a nil *Adapter in a non-nil interface
	}
	return a, nil
}

func (d Driver) open(ctx context.Context, p adapter.Params) (*Adapter, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tmux: open: %w", err)
	}
	act, c, err := check(p)
	if err != nil {
		return nil, err
	}
	a := &Adapter{
		log:      p.Logger,
		pane:     act.pane,
		socket:   act.socket,
		label:    p.App,
		timeout:  c.timeout,
		names:    optionNames(c.prefix),
		runner:   &cmdrun.Runner{Path: act.bin, Env: p.Env, Timeout: c.timeout, Recognize: recognize},
		gate:     calls.NewGate(),
		diags:    calls.NewDiagnostics(p.Name, p.Diagnose),
		stateDir: owner.StateDir(p.Env, "tmux"),
		now:      time.Now,
	}
	if a.log == nil {
		a.log = hclog.NewNullLogger()
	}
	// The server part of the key is "<socket>,<server pid>": a server
	// started again on the same socket numbers its panes afresh.
	a.owner = owner.New(owner.Key{Kind: "tmux", Server: act.server, Pane: act.pane},
		owner.Options{Dir: a.stateDir, Resend: a.takeBack})
	if c.clamped != "" {
		a.diags.Emit(adapter.KindInvalidValue, "%s", c.clamped)
	}
	return a, nil
}

// config is a decoded and checked settings section.
type config struct {
	prefix  string
	timeout time.Duration
	clamped string // how the timeout was clamped, if it was
}

// configOf decodes and checks the settings section and the app name, for
// Open, Check and Preview alike. It does no I/O.
func configOf(p adapter.Params) (config, error) {
	var s struct {
		Prefix  *string         `json:"prefix"`
		Timeout json.RawMessage `json:"timeout"`
	}
	if len(bytes.TrimSpace(p.Settings)) > 0 {
		if err := json.Unmarshal(p.Settings, &s); err != nil {
			return config{}, fmt.Errorf("tmux: settings: %w", err)
		}
	}
	c := config{prefix: DefaultPrefix}
	if s.Prefix != nil {
		c.prefix = *s.Prefix
	}
	if strings.HasPrefix(c.prefix, "@") {
		return config{}, fmt.Errorf("tmux: settings: prefix %q must not start with '@' (it is added: @<prefix>_state)", adapter.Bound(c.prefix, 40))
	}
	if !validPrefix(c.prefix) {
		return config{}, fmt.Errorf("tmux: settings: prefix %q must be 1-32 letters, digits, '_' or '-', starting with a letter or digit", adapter.Bound(c.prefix, 40))
	}
	var err error
	if c.timeout, c.clamped, err = cmdrun.ParseTimeout(s.Timeout); err != nil {
		return config{}, fmt.Errorf("tmux: settings: %w", err)
	}
	if !validLabel(p.App) {
		return config{}, fmt.Errorf("tmux: agent label (the app name) %q must be 1-64 characters of letters, digits, '.', '_' or '-'", adapter.Bound(p.App, 80))
	}
	return c, nil
}

// Check returns what Open would say, as [adapter.Checker] describes: the
// same conditions as Open, in the same order, then the settings section (a
// bad prefix or timeout) and the app name, with no diagnostic and no I/O
// besides the PATH search.
func (Driver) Check(p adapter.Params) error {
	_, _, err := check(p)
	return err
}

func check(p adapter.Params) (activated, config, error) {
	act, err := activation(p)
	if err != nil {
		return act, config{}, err
	}
	c, err := configOf(p)
	return act, c, err
}

// Preview returns the setup Open would give the adapter for p, for the
// registry's Explain before Attach (see [adapter.Previewer]), keyed as the
// adapter's own Details key them: "options" (the pane options it sets,
// @<prefix>_state, _message and _agent), "agent" and "timeout"; and
// "prefix", the setting, which a tmux format names to show the state. Check
// must have returned nil for p; Preview returns nil otherwise.
func (Driver) Preview(p adapter.Params) map[string]string {
	c, err := configOf(p)
	if err != nil {
		return nil
	}
	names := optionNames(c.prefix)
	return map[string]string{
		"prefix":  c.prefix,
		"options": strings.Join(names[:3], " "),
		"agent":   p.App,
		"timeout": c.timeout.String(),
	}
}

// optionNames are the pane options with prefix: the three flat ones, then
// the JSON one.
func optionNames(prefix string) [4]string {
	return [4]string{"@" + prefix + "_state", "@" + prefix + "_message", "@" + prefix + "_agent", "@" + prefix}
}

// activated is what activation found.
type activated struct {
	socket, server, pane, bin string
}

// activation checks everything that decides whether this process may set
// its pane's options: the environment, the host and the tmux executable.
func activation(p adapter.Params) (activated, error) {
	tmuxVar, ok := p.Env.Lookup(EnvTmux)
	if !ok || tmuxVar == "" {
		return activated{}, errTmuxUnset
	}
	socket, err := parseTmuxVar(tmuxVar)
	if err != nil {
		return activated{}, fmt.Errorf("tmux: %w: %s %q: %w", adapter.ErrInactive, EnvTmux, adapter.Bound(tmuxVar, 120), err)
	}
	pane, ok := p.Env.Lookup(EnvPane)
	if !ok || pane == "" {
		return activated{}, errPaneUnset
	}
	if !validPaneID(pane) {
		return activated{}, fmt.Errorf("tmux: %w: %s %q is not a pane id (%%N)", adapter.ErrInactive, EnvPane, adapter.Bound(pane, 40))
	}
	if err := builtin.CheckHost(p.Host); err != nil {
		return activated{}, fmt.Errorf("tmux: host may not claim a pane: %w", err)
	}
	bin, err := cmdrun.LookPath(p.Env, Program)
	if errors.Is(err, cmdrun.ErrNotFound) {
		return activated{}, errNoTmux
	}
	if err != nil {
		return activated{}, fmt.Errorf("tmux: %w: no usable %s executable in the captured PATH: %w", adapter.ErrInactive, Program, err)
	}
	server := tmuxVar[:strings.LastIndexByte(tmuxVar, ',')] // "<socket>,<server pid>"
	return activated{socket: socket, server: server, pane: pane, bin: bin}, nil
}

// parseTmuxVar returns the socket path of a TMUX value. tmux writes it as
// "%s,%ld,%d" (socket, server pid, session id or -1), and a socket path may
// itself contain commas, so the two numbers are taken from the right.
func parseTmuxVar(v string) (socket string, err error) {
	i := strings.LastIndexByte(v, ',')
	j := strings.LastIndexByte(v[:max(i, 0)], ',')
	if j < 0 {
		return "", errors.New("not \"<socket>,<pid>,<session>\"")
	}
	socket, pid, session := v[:j], v[j+1:i], v[i+1:]
	if n, err := strconv.ParseUint(pid, 10, 31); err != nil || n == 0 {
		return "", fmt.Errorf("server pid %q is not a process id", adapter.Bound(pid, 20))
	}
	if _, err := strconv.ParseInt(session, 10, 32); err != nil {
		return "", fmt.Errorf("session %q is not a number", adapter.Bound(session, 20))
	}
	if !filepath.IsAbs(socket) {
		return "", errors.New("socket path is not absolute")
	}
	return socket, nil
}

// Codes recognised in tmux's error output; see [Adapter.Report].
const (
	CodeServerNotRunning = "server_not_running" // "no server running on <socket>"
	CodeConnectFailed    = "connect_failed"     // "error connecting to <socket> (<reason>)"
	CodePaneNotFound     = "pane_not_found"     // "can't find pane: %N" (3.4+), "no such pane: %N" (3.3)
	CodeAccessDenied     = "access_denied"      // "access not allowed" (server-access, 3.3+)
	CodeServerExited     = "server_exited"      // "server exited unexpectedly", "lost server"
	CodeVersionMismatch  = "version_mismatch"   // "protocol version mismatch": client and server differ
)

// recognize maps tmux's error messages to a fixed code, so diagnostics
// never repeat tmux's output (which names the socket and the pane).
func recognize(_, stderr []byte) string {
	for line := range bytes.Lines(stderr) {
		switch {
		case bytes.HasPrefix(line, []byte("no server running on ")):
			return CodeServerNotRunning
		case bytes.HasPrefix(line, []byte("error connecting to ")):
			return CodeConnectFailed
		case bytes.HasPrefix(line, []byte("can't find pane")), bytes.HasPrefix(line, []byte("no such pane")):
			return CodePaneNotFound
		case bytes.Contains(line, []byte("access not allowed")):
			return CodeAccessDenied
		case bytes.Contains(line, []byte("server exited")), bytes.HasPrefix(line, []byte("lost server")):
			return CodeServerExited
		case bytes.HasPrefix(line, []byte("protocol version mismatch")):
			return CodeVersionMismatch
		}
	}
	return ""
}
