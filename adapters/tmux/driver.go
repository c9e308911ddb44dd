package tmux

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
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
)

// Settings reports true, and the keys of the adapter's settings section
// besides "enabled": "prefix" and "timeout". Inside an eligible tmux pane
// the adapter runs unless "tmux.enabled" is false.
func (Driver) Settings() (enabledByDefault bool, keys []string) {
	return true, []string{"prefix", "timeout"}
}

// ScrubEnv returns a copy of env without TMUX_PANE, and with TMUX kept
// ([adapter.EnvScrubber]). Hosts do not call it: they pass the environment
// of every tool subprocess the agent starts through Registry.ScrubEnv,
// which asks every registered driver.
//
// Why TMUX_PANE alone: a nested agent, or a second copy of the host started
// by a tool, that inherits both variables would take the parent's pane for
// its own: it would overwrite the parent's state and, when it exits, unset
// it. Without TMUX_PANE the adapter is inactive in the child, which is all
// that is needed. TMUX stays, because it is what every tmux-aware tool
// (the tmux command itself, editors' clipboard and pane integrations,
// test runners that split panes) uses to find the server: without it, a
// tool's `tmux` would start or attach to another server, nested in the
// pane. Such a tool without TMUX_PANE still works; a command of its that
// names no target pane acts on the window's active pane rather than the
// agent's. Names are matched without regard to case, as Windows does.
func (Driver) ScrubEnv(env adapter.Env) adapter.Env {
	out := make(adapter.Env, 0, len(env))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); strings.EqualFold(k, EnvPane) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// settings is the adapter's own settings section.
type settings struct {
	Prefix  *string         `json:"prefix"`
	Timeout json.RawMessage `json:"timeout"`
}

// validPrefix is the "prefix" setting's form. tmux takes any user option
// name that starts with "@" and has no "[" (which starts an array index),
// and compares names exactly. The options must also be usable inside
// formats, #{@…} and #{?#{==:#{@…},blocked},…,…}, where ",", ":", "}",
// "#" and spaces have meanings: so letters, digits, "_" and "-", starting
// with a letter or digit.
// (1 to 32 bytes.) Checked by hand rather than with a regexp: a compiled
// regexp costs every program that links this package about 0.2 ms and 700
// allocations at start, which a hook process run per agent event pays.
func validPrefix(s string) bool { return builtin.ValidName(s, 32, "_-") }

// validLabel is the agent label's form: the registry's rule for app names.
// It keeps the value clear of tmux's command separator (an argument ending
// in ";") and of "#", which status formats would read as a style.
func validLabel(s string) bool { return builtin.ValidName(s, 64, "._-") }

// validPaneID is TMUX_PANE's form: "%" and 1 to 10 digits.
func validPaneID(s string) bool {
	if len(s) < 2 || len(s) > 11 || s[0] != '%' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Open returns an [Adapter] for the tmux pane this process runs in. It
// returns an error wrapping [adapter.ErrInactive], naming the failed
// condition, when TMUX or TMUX_PANE is unset or malformed, the host is not
// an interactive root session, or no executable "tmux" is in the captured
// PATH; a plain error for a bad prefix or timeout or an app name that
// cannot be the label. A timeout outside 100ms..60s is clamped, with one
// invalid_value diagnostic. Open does no I/O besides the PATH search.
func (d Driver) Open(ctx context.Context, p adapter.Params) (adapter.Adapter, error) {
	a, err := d.open(ctx, p)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// open is Open with the concrete type.
func (d Driver) open(ctx context.Context, p adapter.Params) (*Adapter, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tmux: open: %w", err)
	}
	act, err := activation(p)
	if err != nil {
		return nil, err
	}
	c, err := decodeSettings(p.Settings)
	if err != nil {
		return nil, err
	}
	if err := checkLabel(p.App); err != nil {
		return nil, err
	}
	a := &Adapter{
		log:  cmp.Or(p.Logger, hclog.NewNullLogger()),
		pane: act.pane, socket: act.socket, prefix: c.prefix, label: p.App, timeout: c.timeout,
		runner:   &cmdrun.Runner{Path: act.bin, Env: p.Env, Timeout: c.timeout, Recognize: recognize},
		gate:     calls.NewGate(),
		diags:    calls.NewDiagnostics(p.Name, p.Diagnose),
		stateDir: owner.StateDir(p.Env, "tmux"),
	}
	// The server part of the key is "<socket>,<server pid>": a server
	// started again on the same socket numbers its panes afresh.
	a.owner = owner.New(owner.Key{Kind: "tmux", Server: act.server, Pane: act.pane},
		owner.Options{Dir: a.stateDir, Resend: a.takeBack})
	a.names = [3]string(optionNames(c.prefix))
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

// decodeSettings decodes and checks the adapter's settings section, for
// Open and Check alike. It does no I/O.
func decodeSettings(raw json.RawMessage) (config, error) {
	var s settings
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &s); err != nil {
			return config{}, fmt.Errorf("tmux: settings: %w", err)
		}
	}
	c := config{prefix: DefaultPrefix}
	if s.Prefix != nil {
		c.prefix = *s.Prefix
	}
	if err := checkPrefix(c.prefix); err != nil {
		return config{}, err
	}
	var err error
	if c.timeout, c.clamped, err = cmdrun.ParseTimeout(s.Timeout); err != nil {
		return config{}, fmt.Errorf("tmux: settings: %w", err)
	}
	return c, nil
}

// checkPrefix reports why prefix cannot name the pane options.
func checkPrefix(prefix string) error {
	if strings.HasPrefix(prefix, "@") {
		return fmt.Errorf("tmux: settings: prefix %q must not start with '@' (it is added: @<prefix>_state)", adapter.Bound(prefix, 40))
	}
	if !validPrefix(prefix) {
		return fmt.Errorf("tmux: settings: prefix %q must be 1-32 letters, digits, '_' or '-', starting with a letter or digit", adapter.Bound(prefix, 40))
	}
	return nil
}

// checkLabel reports why the app name cannot be the agent label.
func checkLabel(app string) error {
	if !validLabel(app) {
		return fmt.Errorf("tmux: agent label (the app name) %q must be 1-64 characters of letters, digits, '.', '_' or '-'", adapter.Bound(app, 80))
	}
	return nil
}

// Check returns what Open would say, as [adapter.Checker] describes: the
// same conditions as Open, in the same order, then the settings section (a
// bad prefix or timeout) and the app name, with no diagnostic and no I/O
// besides the PATH search.
func (Driver) Check(p adapter.Params) error {
	if _, err := activation(p); err != nil {
		return err
	}
	if _, err := decodeSettings(p.Settings); err != nil {
		return err
	}
	return checkLabel(p.App)
}

var _ adapter.Previewer = Driver{}

// Preview returns the setup Open would give the adapter for p, for the
// registry's Explain before Attach (see [adapter.Previewer]), keyed as the
// adapter's own Details key them: "options" (the pane options it sets,
// @<prefix>_state, _message and _agent), "agent" and "timeout"; and
// "prefix", the setting, which a tmux format names to show the state. Check
// must have returned nil for p; Preview returns nil otherwise.
func (Driver) Preview(p adapter.Params) map[string]string {
	c, err := decodeSettings(p.Settings)
	if err != nil || checkLabel(p.App) != nil {
		return nil
	}
	return map[string]string{
		"prefix":  c.prefix,
		"options": strings.Join(optionNames(c.prefix), " "),
		"agent":   p.App,
		"timeout": c.timeout.String(),
	}
}

// optionNames are the pane options the adapter sets with prefix.
func optionNames(prefix string) []string {
	return []string{"@" + prefix + "_state", "@" + prefix + "_message", "@" + prefix + "_agent"}
}

// activated is what activation found.
type activated struct {
	socket, server, pane, bin string
}

// activation checks everything that decides whether this process may set
// its pane's options: the environment, the host and the tmux executable.
func activation(p adapter.Params) (activated, error) {
	env := p.Env
	tmuxVar, ok := env.Lookup(EnvTmux)
	if !ok || tmuxVar == "" {
		return activated{}, errTmuxUnset
	}
	socket, err := parseTmuxVar(tmuxVar)
	if err != nil {
		return activated{}, fmt.Errorf("tmux: %w: %s %q: %w", adapter.ErrInactive, EnvTmux, adapter.Bound(tmuxVar, 120), err)
	}
	pane, ok := env.Lookup(EnvPane)
	if !ok || pane == "" {
		return activated{}, errPaneUnset
	}
	if !validPaneID(pane) {
		return activated{}, fmt.Errorf("tmux: %w: %s %q is not a pane id (%%N)", adapter.ErrInactive, EnvPane, adapter.Bound(pane, 40))
	}
	if err := builtin.CheckHost(p.Host); err != nil {
		return activated{}, fmt.Errorf("tmux: host may not claim a pane: %w", err)
	}
	bin, err := cmdrun.LookPath(env, Program)
	if errors.Is(err, cmdrun.ErrNotFound) {
		return activated{}, errNoTmux
	}
	if err != nil {
		return activated{}, fmt.Errorf("tmux: %w: no usable %s executable in the captured PATH: %w", adapter.ErrInactive, Program, err)
	}
	server, _, _ := cut2Last(tmuxVar) // "<socket>,<server pid>"
	return activated{socket: socket, server: server, pane: pane, bin: bin}, nil
}

// parseTmuxVar returns the socket path of a TMUX value. tmux writes it as
// "%s,%ld,%d" (socket, server pid, session id or -1), and a socket path may
// itself contain commas, so the two numbers are taken from the right.
func parseTmuxVar(v string) (socket string, err error) {
	rest, session, ok1 := cut2Last(v)
	socket, pid, ok2 := cut2Last(rest)
	if !ok1 || !ok2 {
		return "", errors.New("not \"<socket>,<pid>,<session>\"")
	}
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

// cut2Last splits s at its last comma.
func cut2Last(s string) (before, after string, ok bool) {
	i := strings.LastIndexByte(s, ',')
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
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

// DefaultTimeout is the deadline of one tmux call when "timeout" is not
// set; the setting takes a duration string or milliseconds, clamped to
// [cmdrun.MinTimeout, cmdrun.MaxTimeout], as herdr.timeout does.
const DefaultTimeout = cmdrun.DefaultTimeout
