package terminal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/builtin"
)

// Refresh intervals. While the agent is working or blocked the adapter has
// its sequence sent again after this much quiet, because Ghostty clears a
// progress state it has not seen for 15 seconds. A "refresh" setting outside
// [MinRefresh, MaxRefresh] is clamped, with an invalid_value diagnostic:
// above MaxRefresh Ghostty would drop the state between two refreshes, below
// MinRefresh the writes would only add noise to the host's output.
const (
	DefaultRefresh = 10 * time.Second
	MinRefresh     = time.Second
	MaxRefresh     = 14 * time.Second
)

// The OSC 9;4 sequences, terminated by ST (ESC \), which every terminal this
// adapter supports accepts, and which, unlike BEL, no terminal that ignores
// the sequence turns into a beep.
const (
	seqWorking = "\x1b]9;4;3\x1b\\"     // indeterminate progress
	seqBlocked = "\x1b]9;4;4;100\x1b\\" // paused (warning) state, full bar
	seqClear   = "\x1b]9;4;0\x1b\\"     // no progress
)

// maxLabel bounds the application label in a notification, in bytes.
const maxLabel = 64

// Driver opens terminal adapters. Its zero value is ready to use and safe
// for concurrent use: everything it needs arrives in [adapter.Params].
type Driver struct{}

var (
	_ adapter.Driver        = Driver{}
	_ adapter.SettingsOwner = Driver{}
	_ adapter.Checker       = Driver{}
)

// Settings returns true, and "refresh" and "notify", the keys of the
// "terminal" section besides "enabled": the adapter decides for itself, from
// the environment, whether the terminal shows progress, and starts nothing
// where it does not.
func (Driver) Settings() (enabledByDefault bool, keys []string) {
	return true, []string{"refresh", "notify"}
}

// settings is the adapter's settings section.
type settings struct {
	Refresh json.RawMessage `json:"refresh"`
	Notify  *bool           `json:"notify"`
}

// decode reads the section. A section that is not an object, or a key of the
// wrong type, is an error.
func decode(raw json.RawMessage) (settings, error) {
	var s settings
	if len(bytes.TrimSpace(raw)) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return settings{}, fmt.Errorf("terminal: settings: %w", err)
	}
	return s, nil
}

// decodeSettings decodes and checks the section, for Open and Check alike: s is the decoded section, refresh its refresh
// interval and clamped how it was clamped, if it was. It does no I/O.
func decodeSettings(raw json.RawMessage) (s settings, refresh time.Duration, clamped string, err error) {
	if s, err = decode(raw); err != nil {
		return settings{}, 0, "", err
	}
	if refresh, clamped, err = parseRefresh(s.Refresh); err != nil {
		return settings{}, 0, "", err
	}
	return s, refresh, clamped, nil
}

// Check returns what Open would say without opening anything: an error
// wrapping [adapter.ErrInactive] that says why the adapter does not apply;
// else the error of a bad section (not an object, a notify that is not a
// boolean, a refresh that is not a duration); else nil. It reads only
// p.Terminal (whether it is nil), p.Host, p.Env, p.Forced (a literal
// "enabled": true in a settings layer) and p.Settings, and does no I/O.
func (Driver) Check(p adapter.Params) error {
	s, _ := decode(p.Settings) // a bad section is reported after activation
	if _, err := activation(p, s); err != nil {
		return err
	}
	_, _, _, err := decodeSettings(p.Settings)
	return err
}

// activation decides whether the adapter applies, and to which terminal.
func activation(p adapter.Params, s settings) (profile, error) {
	if p.Terminal == nil {
		return profile{}, fmt.Errorf("terminal: %w: the host handed over no terminal (registry.Options.Terminal is nil)", adapter.ErrInactive)
	}
	if err := builtin.CheckHost(p.Host); err != nil {
		return profile{}, fmt.Errorf("terminal: %w", err)
	}
	on := p.Forced // terminal.enabled is the literal true in a settings layer
	term := detect(p.Env)
	var why string
	switch {
	case p.Env.Get("HERDR_ENV") == "1":
		why = "inside a Herdr pane (HERDR_ENV=1), where the herdr adapter reports"
	case p.Env.Get("TMUX") != "" && !term.tmux:
		// tmux before 3.7 drops OSC 9;4. 3.7 and later parse it into
		// #{pane_pb_state} and forward it to the terminal they run in, so
		// there the adapter reports to tmux (detect's tmux profile).
		why = "inside tmux (TMUX is set) whose version is unknown (TERM_PROGRAM is not tmux); tmux before 3.7 drops OSC 9;4, and the tmux adapter reports there"
		if strings.HasPrefix(term.name, "tmux") {
			why = "inside " + term.why + "; the tmux adapter reports there"
		}
	case p.Env.Get("STY") != "":
		// GNU screen, like tmux, keeps OSC 9;4 from the outer terminal.
		why = "inside GNU screen (STY is set), which does not pass OSC 9;4 on"
	case p.Env.Get("ZELLIJ") != "":
		why = "inside zellij (ZELLIJ is set), whose handling of OSC 9;4 is not known"
	case p.Env.Get("TERM") == "dumb":
		why = "TERM is dumb"
	case !term.shows:
		why = term.why
	case term.tmux && p.Env.Get("TMUX") == "":
		why = "TERM_PROGRAM is tmux, but TMUX is not set"
	}
	if why != "" && !on {
		return profile{}, fmt.Errorf("terminal: %w: %s; set terminal.enabled to true to force it", adapter.ErrInactive, why)
	}
	return term, nil
}

// Open returns an [Adapter] that writes to p.Terminal.
//
// It returns an error wrapping [adapter.ErrInactive] when p.Terminal is nil,
// when the host is not an interactive root session, and, unless
// terminal.enabled is the literal true (p.Forced),
// inside tmux before 3.7, GNU screen, zellij or Herdr, with TERM=dumb, or when the
// environment names no terminal known to show OSC 9;4 (see the package
// documentation). Otherwise it returns a plain error for a bad setting.
// Open writes nothing and starts nothing; ctx is only checked for
// cancellation.
func (d Driver) Open(ctx context.Context, p adapter.Params) (adapter.Adapter, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("terminal: open: %w", err)
	}
	// Whether the adapter applies comes first, as in Check: a bad setting
	// in a terminal that shows nothing leaves the adapter inactive, not
	// failed. An undecodable section forces nothing.
	s, refresh, clamped, badSettings := decodeSettings(p.Settings)
	term, err := activation(p, s)
	if err != nil {
		return nil, err
	}
	if badSettings != nil {
		return nil, badSettings
	}
	diagnose := p.Diagnose
	if diagnose == nil {
		diagnose = func(adapter.Diagnostic) {}
	}
	if clamped != "" {
		diagnose(adapter.NewDiagnostic(p.Name, adapter.KindInvalidValue, "%s", clamped))
	}
	a := &Adapter{out: p.Terminal, term: term, refresh: refresh}
	if s.Notify != nil && *s.Notify {
		if term.notify == notifyNone {
			diagnose(adapter.NewDiagnostic(p.Name, adapter.KindUnsupported,
				"notify is on, but %s has no desktop notification sequence; no notification is sent", term.name))
		} else {
			a.notes = notifications(term.notify, label(p.App))
		}
	}
	return a, nil
}

// parseRefresh reads the "refresh" setting with [builtin.ParseDuration]: a
// Go duration string ("10s") or a number of milliseconds, as herdr.timeout.
// Out-of-range values are clamped; clamped says how.
func parseRefresh(raw json.RawMessage) (d time.Duration, clamped string, err error) {
	d, err = builtin.ParseDuration("refresh", raw, DefaultRefresh)
	if err != nil {
		return 0, "", fmt.Errorf("terminal: settings: %w", err)
	}
	switch {
	case d < MinRefresh:
		return MinRefresh, fmt.Sprintf("refresh %s is below %s; using %s", d, MinRefresh, MinRefresh), nil
	case d > MaxRefresh:
		return MaxRefresh, fmt.Sprintf("refresh %s is above %s (Ghostty drops a progress state after 15s); using %s", d, MaxRefresh, MaxRefresh), nil
	}
	return d, "", nil
}

// label makes the application's name safe to put inside an escape
// sequence: control characters (C0, DEL, C1) and invalid UTF-8 are dropped,
// so nothing can end the sequence early or start another; ';' is dropped
// because it separates OSC fields; the rest is trimmed and cut to maxLabel
// bytes.
func label(app string) string {
	var b strings.Builder
	for _, r := range app {
		if r == utf8.RuneError || r == ';' || unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ' {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > maxLabel {
			break
		}
		b.WriteRune(r)
	}
	if s := strings.TrimSpace(b.String()); s != "" {
		return s
	}
	return "agent"
}

// notifications builds, once, the notification sequence for each fixed
// message a blocked report can carry. Only the label and these fixed texts
// go into them; Report sends the MessageNone one for a message outside the
// set.
func notifications(n notifier, label string) map[adapter.Message][]byte {
	msgs := []adapter.Message{adapter.MessageNone, adapter.MessageWaitingForApproval,
		adapter.MessageWaitingForInput, adapter.MessageWorkflowNeedsAttention}
	out := make(map[adapter.Message][]byte, len(msgs))
	for _, m := range msgs {
		text := m.String()
		if text == "" {
			text = "Needs attention"
		}
		var seq string
		switch n {
		case notifyOSC9:
			seq = "\x1b]9;" + label + ": " + text + "\x1b\\"
		case notifyOSC777:
			seq = "\x1b]777;notify;" + label + ";" + text + "\x1b\\"
		case notifyOSC99:
			seq = "\x1b]99;;" + label + ": " + text + "\x1b\\"
		}
		out[m] = []byte(seq)
	}
	return out
}

// Adapter shows the agent's state as the terminal's progress indicator.
// Create one with [Driver.Open]. All its methods are safe for concurrent
// use: Report and Release take turns, and Close, Details and RefreshInterval
// never wait for them. After Close returns, Report and Release return
// [adapter.ErrClosed] and write nothing; a call already writing when Close
// runs finishes its write.
type Adapter struct {
	out     io.Writer
	term    profile
	refresh time.Duration
	notes   map[adapter.Message][]byte // nil unless notifications are on; read-only

	// mu serialises Report and Release, and so the writes, and guards
	// shown. Close and Details never take it, so that a terminal that stops
	// accepting writes (a tty stopped with Ctrl-S) can stall neither: Close
	// only sets closed, and what Details shows is in the atomics.
	mu    sync.Mutex
	shown adapter.State // the state the indicator shows; 0 when cleared

	closed    atomic.Bool   // set by Close; read under mu before writing
	shownView atomic.Uint32 // shown, for Details
	writes    atomic.Int64  // sequences written
	notified  atomic.Int64  // notifications written
}

var (
	_ adapter.Adapter   = (*Adapter)(nil)
	_ adapter.Releaser  = (*Adapter)(nil)
	_ adapter.Closer    = (*Adapter)(nil)
	_ adapter.Refresher = (*Adapter)(nil)
	_ adapter.Detailer  = (*Adapter)(nil)
)

var (
	bytesWorking = []byte(seqWorking)
	bytesBlocked = []byte(seqBlocked)
	bytesClear   = []byte(seqClear)
)

// Report writes the progress sequence for r.State: indeterminate while
// working, paused while blocked, none when idle. On entering blocked from
// another state it then writes one notification, when notifications are on.
// Each sequence is one Write. A report equal to the last one (a refresh)
// writes its progress sequence again and never notifies. r.Reason never
// leaves the process, and r.Message only as one of its fixed texts.
//
// With ctx already done Report writes nothing and returns ctx's error; ctx
// cannot interrupt a Write under way, which returns when the terminal takes
// the bytes (an io.Writer has no cancellation). A failed Write is returned, and the report counts as not delivered: the
// registry offers it again, notification included.
func (a *Adapter) Report(ctx context.Context, r adapter.Report) error {
	seq := bytesClear
	switch r.State {
	case adapter.StateWorking:
		seq = bytesWorking
	case adapter.StateBlocked:
		seq = bytesBlocked
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return adapter.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("terminal: report: %w", err)
	}
	if err := a.writeLocked(seq); err != nil {
		return err
	}
	if r.State == adapter.StateBlocked && a.shown != adapter.StateBlocked && a.notes != nil {
		note, ok := a.notes[r.Message]
		if !ok { // a message outside the fixed set: say only that it waits
			note = a.notes[adapter.MessageNone]
		}
		if err := a.writeLocked(note); err != nil {
			return err
		}
		a.notified.Add(1)
	}
	a.setShownLocked(r.State)
	return nil
}

// RefreshInterval returns the refresh setting while r is working or
// blocked, and 0 (no refresh, no timer) when r is idle.
func (a *Adapter) RefreshInterval(r adapter.Report) time.Duration {
	if r.State == adapter.StateWorking || r.State == adapter.StateBlocked {
		return a.refresh
	}
	return 0
}

// Release clears the progress indicator when reporting stops for good
// (Detach, or the adapter being disabled). It writes the clear even when
// nothing was reported, since a predecessor replaced by a settings change
// may have left a state on the tab, and even when ctx is already done: the
// write is one short sequence, and a spinner left on a tab whose agent has
// exited is the one thing this adapter must not do.
func (a *Adapter) Release(context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return adapter.ErrClosed
	}
	if err := a.writeLocked(bytesClear); err != nil {
		return err
	}
	a.setShownLocked(0)
	return nil
}

// Close marks the adapter closed and returns at once, even while a Report
// or Release waits for the terminal to take its write; ctx is not used.
// It writes nothing (a successor opened by a settings change reports its own
// state at once), holds no goroutine, timer or file, and is idempotent.
func (a *Adapter) Close(context.Context) error {
	a.closed.Store(true)
	return nil
}

// Details returns the detected terminal, what the indicator shows, the
// refresh interval, whether notifications are sent and the number of
// writes.
func (a *Adapter) Details() map[string]string {
	shown := "nothing"
	switch adapter.State(a.shownView.Load()) {
	case adapter.StateWorking:
		shown = "indeterminate progress (working)"
	case adapter.StateBlocked:
		shown = "paused progress (blocked)"
	case adapter.StateIdle:
		shown = "nothing (idle)"
	}
	notify := "off"
	if a.notes != nil {
		notify = fmt.Sprintf("%s, %d sent", a.term.notify, a.notified.Load())
	}
	return map[string]string{
		"terminal": a.term.name,
		"shows":    shown,
		"refresh":  a.refresh.String(),
		"notify":   notify,
		"writes":   fmt.Sprint(a.writes.Load()),
	}
}

// writeLocked writes one whole sequence in a single Write. a.mu is held.
func (a *Adapter) writeLocked(seq []byte) error {
	if _, err := a.out.Write(seq); err != nil {
		return fmt.Errorf("terminal: write: %w", err)
	}
	a.writes.Add(1)
	return nil
}

// setShownLocked records what the indicator shows. a.mu is held.
func (a *Adapter) setShownLocked(s adapter.State) {
	a.shown = s
	a.shownView.Store(uint32(s))
}
