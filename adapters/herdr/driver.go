package herdr

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/builtin"
	"github.com/panestate/panestate/internal/calls"
	"github.com/panestate/panestate/internal/cmdrun"
	"github.com/panestate/panestate/internal/owner"
)

// Environment variables Herdr puts in every pane process.
const (
	EnvMarker = "HERDR_ENV"         // "1" inside a Herdr pane
	EnvBin    = "HERDR_BIN_PATH"    // the running Herdr executable
	EnvPane   = "HERDR_PANE_ID"     // the pane this process lives in, e.g. "w1:p1"
	EnvSocket = "HERDR_SOCKET_PATH" // the server's API socket
)

// Refresh intervals. A "refresh" setting outside [MinRefresh, MaxRefresh]
// (other than 0, which turns refreshing off) is clamped, with an
// invalid_value diagnostic.
const (
	DefaultRefresh = 30 * time.Second
	MinRefresh     = time.Second
	MaxRefresh     = 10 * time.Minute
)

// Timeouts applied to every call. A "timeout" setting outside
// [MinTimeout, MaxTimeout] is clamped, with an invalid_value diagnostic.
const (
	DefaultTimeout = 5 * time.Second
	MinTimeout     = 100 * time.Millisecond
	MaxTimeout     = 60 * time.Second
)

// waitDelay is how long a CLI call waits, after its child exited or was
// killed, for a grandchild that inherited the child's stdout or stderr to
// let go. Then the pipes are closed and the call returns.
const waitDelay = cmdrun.DefaultWaitDelay

// defaultConflicts are the reporters the adapter defers to when the host has
// actually loaded them: the community Atomic reporter and Herdr's own Pi
// extension, which report the same pane on their own. Read-only.
var defaultConflicts = []string{"herdr-atomic-reporter", "herdr-agent-state"}

// Errors that Open returns outside Herdr. They are built once so that the
// common "not inside Herdr" answer allocates nothing.
var (
	errEnvUnset = fmt.Errorf("herdr: %w: %s is not set (not inside a Herdr pane)", adapter.ErrInactive, EnvMarker)
)

// missingVars returns the error naming every one of HERDR_BIN_PATH,
// HERDR_PANE_ID and HERDR_SOCKET_PATH that is empty or unset, or nil. A
// person fixing a launcher wants the whole list at once, not one per try.
func missingVars(bin, pane, socket string) error {
	var missing []string
	for _, v := range [...]struct{ name, value string }{{EnvBin, bin}, {EnvPane, pane}, {EnvSocket, socket}} {
		if v.value == "" {
			missing = append(missing, v.name)
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("herdr: %w: %s is empty or unset", adapter.ErrInactive, missing[0])
	}
	return fmt.Errorf("herdr: %w: %s and %s are empty or unset", adapter.ErrInactive, strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1])
}

// Driver opens the Herdr adapter. The zero value is ready to use with
// production defaults; the fields exist for tests and for hosts with special
// needs. A Driver is safe for concurrent use and must not be changed after
// it is first used.
type Driver struct {
	// Clock returns the time used to seed sequence numbers. Nil means
	// time.Now.
	Clock func() time.Time
	// StateDir is where the per-pane sequence files live. Empty means a
	// directory derived from the captured environment:
	// $XDG_STATE_HOME/panestate/herdr, else $HOME/.local/state/panestate/herdr
	// (on Windows %LOCALAPPDATA%\panestate\herdr).
	StateDir string
	// Conflicts are texts that, found in a path of the host's loaded
	// extensions, make the adapter defer to that reporter. Nil means
	// "herdr-atomic-reporter" (the community Atomic reporter) and
	// "herdr-agent-state" (Herdr's own Pi extension); an empty non-nil slice
	// means none.
	Conflicts []string
}

// Guards: Driver implements the driver interfaces it means to.
var (
	_ adapter.Driver        = Driver{}
	_ adapter.SettingsOwner = Driver{}
	_ adapter.EnvScrubber   = Driver{}
	_ adapter.Checker       = Driver{}
)

// Settings reports true, and the keys of the adapter's settings section
// besides "enabled": "source", "agent", "timeout", "refresh" and
// "transport". Inside an eligible Herdr pane the adapter runs unless the
// settings turn it off.
func (Driver) Settings() (enabledByDefault bool, keys []string) {
	return true, []string{"source", "agent", "timeout", "refresh", "transport"}
}

// ScrubEnv returns a copy of env without any HERDR_* variable, for
// Registry.ScrubEnv, which hosts call on the environment of every tool
// subprocess the agent starts (a shell command, a build, a nested agent).
//
// Why: a child that inherits HERDR_ENV, HERDR_PANE_ID and HERDR_SOCKET_PATH
// believes it owns the parent's pane. A nested agent, or a second copy of the
// host run by a tool, would then report its own state into the parent's pane,
// release it when it exits, or seed a higher sequence number that starves the
// parent's later reports. Herdr has had several such bugs (nested children
// poisoning or releasing the parent's pane); removing the variables is the
// fix that does not depend on the child behaving. Names are matched without
// regard to case, as Windows does.
func (Driver) ScrubEnv(env adapter.Env) adapter.Env {
	out := make(adapter.Env, 0, len(env))
	for _, kv := range env {
		if len(kv) >= len("HERDR_") && strings.EqualFold(kv[:len("HERDR_")], "HERDR_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// settings is the adapter's own settings section.
type settings struct {
	Source    *string         `json:"source"`
	Agent     *string         `json:"agent"`
	Timeout   json.RawMessage `json:"timeout"`
	Refresh   json.RawMessage `json:"refresh"`
	Transport *string         `json:"transport"`
}

// config is a decoded and checked settings section.
type config struct {
	source, label    *string // nil: derived from the app name
	timeout, refresh time.Duration
	mode             transportMode
	clamped          [2]string // how timeout and refresh were clamped, if they were
}

// decodeSettings decodes and checks the adapter's settings section, for
// Open and Check alike. It does no I/O.
func decodeSettings(raw json.RawMessage) (config, error) {
	var s settings
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &s); err != nil {
			return config{}, fmt.Errorf("herdr: settings: %w", err)
		}
	}
	c := config{source: s.Source, label: s.Agent, mode: transportAuto}
	if s.Source != nil {
		if err := checkSource(*s.Source); err != nil {
			return config{}, err
		}
	}
	if s.Agent != nil {
		if err := checkLabel(*s.Agent); err != nil {
			return config{}, err
		}
	}
	var err error
	if c.timeout, c.clamped[0], err = parseDuration("timeout", s.Timeout, DefaultTimeout, MinTimeout, MaxTimeout, false); err != nil {
		return config{}, err
	}
	if c.refresh, c.clamped[1], err = parseDuration("refresh", s.Refresh, DefaultRefresh, MinRefresh, MaxRefresh, true); err != nil {
		return config{}, err
	}
	if s.Transport != nil {
		var ok bool
		if c.mode, ok = parseTransport(*s.Transport); !ok {
			return config{}, fmt.Errorf("herdr: settings: transport %q is not auto, socket or cli", adapter.Bound(*s.Transport, 40))
		}
	}
	return c, nil
}

// Open returns an [Adapter] for the pane this process runs in. Outside an
// eligible pane (see the package documentation's Activation) it returns an
// error wrapping [adapter.ErrInactive] that names the failed condition,
// with one unsupported diagnostic when a conflicting reporter is loaded,
// having started and written nothing. A bad setting or a source or label
// Herdr would refuse is a plain error. Open does no I/O besides a stat and
// an access check of HERDR_BIN_PATH; ctx is only checked for cancellation.
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
		return nil, fmt.Errorf("herdr: open: %w", err)
	}
	bin, pane, socket, conflict, err := d.activation(p)
	if err != nil {
		if conflict != "" && p.Diagnose != nil {
			p.Diagnose(adapter.NewDiagnostic(p.Name, adapter.KindUnsupported, "deferring to the loaded reporter %s", conflict))
		}
		return nil, err
	}
	c, err := decodeSettings(p.Settings)
	if err != nil {
		return nil, err
	}
	source, label, err := c.identity(p.App)
	if err != nil {
		return nil, err
	}
	a := &Adapter{
		log: cmp.Or(p.Logger, hclog.NewNullLogger()), clock: d.Clock,
		bin: bin, pane: pane, socket: socket, source: source, label: label,
		timeout: c.timeout, refresh: c.refresh, mode: c.mode,
		cli:      &cliTransport{bin: bin, env: p.Env.With(EnvSocket, socket)},
		stateDir: cmp.Or(d.StateDir, defaultStateDir(p.Env)),
		gate:     calls.NewGate(),
		diags:    calls.NewDiagnostics(p.Name, p.Diagnose),
	}
	if a.clock == nil {
		a.clock = time.Now
	}
	a.closing = a.gate.Closing()
	a.owner = owner.New(owner.Key{Kind: "herdr", Server: socket, Pane: pane}, owner.Options{Dir: a.stateDir, Resend: a.takeBack})
	a.peer, a.ownerOf = peerCheck(), socketOwner
	if c.mode != transportCLI {
		a.sock = &socketTransport{path: socket, peer: a.peer}
	}
	for _, why := range c.clamped {
		if why != "" {
			a.diags.Emit(adapter.KindInvalidValue, "%s", why)
		}
	}
	if dropped := a.setIdentityLocked(p.Host.Identity); dropped != "" {
		a.diags.Emit(adapter.KindInvalidValue, "%s", dropped)
	}
	return a, nil
}

// parseDuration reads a duration setting with [builtin.ParseDuration], def
// when absent or null. Values outside [lo, hi] are clamped, and clamped
// says how; when zeroOff is set, 0 means off and is kept.
func parseDuration(name string, raw json.RawMessage, def, lo, hi time.Duration, zeroOff bool) (d time.Duration, clamped string, err error) {
	d, err = builtin.ParseDuration(name, raw, def)
	switch {
	case err != nil:
		return 0, "", fmt.Errorf("herdr: settings: %w", err)
	case d == 0 && zeroOff:
		return 0, "", nil
	case d < lo:
		return lo, fmt.Sprintf("%s %s is below %s; using %s", name, d, lo, lo), nil
	case d > hi:
		return hi, fmt.Sprintf("%s %s is above %s; using %s", name, d, hi, hi), nil
	}
	return d, "", nil
}

// identity returns the source and agent label: the settings' when they set
// them (checked by decodeSettings), otherwise derived from the app name and
// checked here, for Open and Check alike.
func (c config) identity(app string) (source, label string, err error) {
	source = "custom:" + app
	if c.source != nil {
		source = *c.source
	} else if err := checkSource(source); err != nil {
		return "", "", err
	}
	label = app
	if c.label != nil {
		label = *c.label
	} else if err := checkLabel(label); err != nil {
		return "", "", err
	}
	return source, label, nil
}

// Check returns what Open would say, as [adapter.Checker] describes: the
// same environment, host and conflict conditions as Open, in the same
// order, then the settings section (a bad source, agent, timeout, refresh
// or transport) and the source and label Open derives from the app name
// when the section sets none, with no diagnostic and no I/O besides a stat
// and an access check of HERDR_BIN_PATH.
func (d Driver) Check(p adapter.Params) error {
	if _, _, _, _, err := d.activation(p); err != nil {
		return err
	}
	c, err := decodeSettings(p.Settings)
	if err != nil {
		return err
	}
	_, _, err = c.identity(p.App)
	return err
}

// activation checks everything that decides whether this process may claim
// its pane: the environment, the host and the loaded reporters. conflict is
// the loaded path of a conflicting reporter, when that is the reason.
func (d Driver) activation(p adapter.Params) (bin, pane, socket, conflict string, err error) {
	env := p.Env
	marker, ok := env.Lookup(EnvMarker)
	if !ok {
		return "", "", "", "", errEnvUnset
	}
	if marker != "1" {
		return "", "", "", "", fmt.Errorf("herdr: %w: %s is %q, not \"1\"", adapter.ErrInactive, EnvMarker, adapter.Bound(marker, 32))
	}
	bin, pane, socket = env.Get(EnvBin), env.Get(EnvPane), env.Get(EnvSocket)
	if err := missingVars(bin, pane, socket); err != nil {
		return "", "", "", "", err
	}
	if !filepath.IsAbs(bin) {
		// A relative path would run a file of the working directory, which
		// may be an untrusted repository; Herdr always sets an absolute one.
		return "", "", "", "", fmt.Errorf("herdr: %w: %s %q is not an absolute path", adapter.ErrInactive, EnvBin, adapter.Bound(bin, 200))
	}
	if err := cmdrun.CheckExecutable(bin); err != nil {
		return "", "", "", "", fmt.Errorf("herdr: %w: %s %q is not usable: %w", adapter.ErrInactive, EnvBin, adapter.Bound(bin, 200), err)
	}
	if err := checkArg(pane); err != nil {
		return "", "", "", "", fmt.Errorf("herdr: %w: %s %q cannot be passed to the Herdr CLI: %w", adapter.ErrInactive, EnvPane, adapter.Bound(pane, 80), err)
	}
	if err := builtin.CheckHost(p.Host); err != nil {
		return "", "", "", "", fmt.Errorf("herdr: host may not claim a pane: %w", err)
	}
	conflicts := d.Conflicts
	if conflicts == nil {
		conflicts = defaultConflicts
	}
	for _, path := range p.Host.LoadedExtensions {
		for _, c := range conflicts {
			if c != "" && strings.Contains(path, c) {
				return "", "", "", path, fmt.Errorf("herdr: %w: a conflicting reporter is loaded: %s", adapter.ErrInactive, adapter.Bound(path, 200))
			}
		}
	}
	return bin, pane, socket, "", nil
}

// defaultStateDir is the pane files' directory for the captured
// environment, or "" when there is nowhere to put it.
func defaultStateDir(env adapter.Env) string { return owner.StateDir(env, "herdr") }
