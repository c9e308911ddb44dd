package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// The states an adapter can be in, as AdapterStatus.State shows them.
const (
	// StateActive: the adapter runs and reports.
	StateActive = "active"
	// StateDisabled: the settings (or the adapter's default) turn it off.
	StateDisabled = "disabled"
	// StateInactive: the adapter does not apply to this process; Why says
	// which condition failed.
	StateInactive = "inactive"
	// StateOpenFailed: opening failed for another reason, usually a bad
	// setting; Why has the error.
	StateOpenFailed = "open failed"
	// StatePanicked: the adapter panicked and was stopped.
	StatePanicked = "panicked"
	// StateNotAttached: reporting is not attached. Before Attach, an adapter
	// in this state is enabled and applies here: it will run on Attach.
	StateNotAttached = "not attached"
)

// Explanation answers "why does my pane show nothing?": for every adapter,
// whether it is enabled and by which settings layer, whether it applies here
// and if not why, what it last delivered, and its diagnostics and counters.
type Explanation struct {
	App      string                `json:"app"`
	Attached bool                  `json:"attached"`
	Host     session.Host          `json:"host"`
	Files    []settings.FileStatus `json:"settings_files"`
	Warnings []string              `json:"settings_warnings,omitempty"`
	Adapters []AdapterStatus       `json:"adapters"`
}

// AdapterStatus is one adapter's part of an [Explanation].
type AdapterStatus struct {
	Name string `json:"name"`
	// Enabled is the effective settings decision; EnabledBy names the layer
	// that made it ("default", "global", "project").
	Enabled   bool   `json:"enabled"`
	EnabledBy string `json:"enabled_by"`
	// State is one of the State constants: StateActive, StateDisabled,
	// StateInactive, StateOpenFailed, StatePanicked or StateNotAttached.
	State string `json:"state"`
	// Why says why the adapter is not active (the failed condition, the
	// conflicting reporter, the settings error).
	Why string `json:"why,omitempty"`
	// SettingsError says why the last settings change for this adapter was
	// not applied (the running adapter was kept).
	SettingsError string `json:"settings_error,omitempty"`
	// LastReport is the last report delivered, if any.
	LastReport *ReportRecord `json:"last_report,omitempty"`
	Counters   Counters      `json:"counters"`
	// Diagnostics are the most recent diagnostics, oldest first;
	// DiagnosticCounts counts every diagnostic by kind.
	Diagnostics      []DiagnosticRecord `json:"diagnostics,omitempty"`
	DiagnosticCounts map[string]uint64  `json:"diagnostic_counts,omitempty"`
	// Details are the adapter's own (adapter.Explainer).
	Details map[string]string `json:"details,omitempty"`
}

// ReportRecord is a delivered report and when it was delivered.
type ReportRecord struct {
	State   string    `json:"state"`
	Reason  string    `json:"reason"`
	Message string    `json:"message,omitempty"`
	At      time.Time `json:"at"`
}

// DiagnosticRecord is a diagnostic and when it happened.
type DiagnosticRecord struct {
	adapter.Diagnostic
	At time.Time `json:"at"`
}

// Counters count what happened to the states the adapter was given.
type Counters struct {
	Delivered uint64 `json:"delivered"` // reports delivered
	Failed    uint64 `json:"failed"`    // deliveries that failed
	Retries   uint64 `json:"retries"`   // retries after a failure
	Coalesced uint64 `json:"coalesced"` // changes merged into one pending delivery
	Unchanged uint64 `json:"unchanged"` // reports not sent because equal to the last delivered
	Unknown   uint64 `json:"unknown"`   // snapshots that gave no new report (workflow state unknown)
}

// Explain describes every adapter of the registry. On an attached registry it
// shows the live state. Before Attach (or after Detach) it reads the settings
// once and asks each driver whether it would apply here, without opening
// anything. It is safe to call at any time, from any goroutine.
func (r *Registry) Explain() Explanation {
	r.mu.Lock()
	attached, cur, watcher := r.view.attached, r.view.cur, r.view.watcher
	r.mu.Unlock()
	if !attached {
		// Read the files once, silently: Explain describes, it does not log.
		so := r.settingsOptions()
		so.Logger = hclog.NewNullLogger()
		cur, _ = settings.Load(so)
	}
	// The files' own state (errors, last good content kept, polling,
	// warnings) is the watcher's newest, even when the effective settings,
	// and so the adapters, did not change.
	files := cur
	if watcher != nil {
		files = watcher.Current()
	}
	e := Explanation{App: r.opts.App, Attached: attached, Host: r.opts.Host, Files: files.Files()}
	for _, w := range files.Warnings() {
		e.Warnings = append(e.Warnings, w.String())
	}
	for _, s := range r.slots {
		e.Adapters = append(e.Adapters, r.explainSlot(s, attached, cur))
	}
	return e
}

func (r *Registry) explainSlot(s *slot, attached bool, cur settings.Settings) AdapterStatus {
	enabled, from := cur.Enabled(s.name, s.def)
	r.mu.Lock()
	st := AdapterStatus{
		Name: s.name, Enabled: enabled, EnabledBy: from.String(),
		State: s.state.String(), Why: s.why, SettingsError: s.reopenErr,
		Diagnostics: slices.Clone(s.recent),
		Counters: Counters{
			Delivered: s.delivered.Load(), Failed: s.failed.Load(), Retries: s.retries.Load(),
			Coalesced: s.coalesced.Load(), Unchanged: s.unchanged.Load(), Unknown: s.unknown.Load(),
		},
	}
	if s.haveLast {
		st.LastReport = &ReportRecord{State: s.last.State.String(), Reason: s.last.Reason.String(),
			Message: s.last.Message.String(), At: s.lastAt}
	}
	if len(s.kinds) > 0 {
		st.DiagnosticCounts = make(map[string]uint64, len(s.kinds))
		for k, n := range s.kinds {
			st.DiagnosticCounts[string(k)] = n
		}
	}
	w := s.w
	state := s.state
	r.mu.Unlock()
	if w != nil {
		r.guard(s, "Explain", func() { st.Details = adapter.Explain(w.a) })
	}
	if !attached && !enabled {
		st.State, st.Why = stateDisabled.String(), disabledWhy(from)
	}
	// Whether the adapter applies here, for those not running: before
	// Attach, and for a disabled one.
	if !attached || state == stateDisabled {
		if err := r.check(s, cur); err != nil {
			switch {
			case !enabled:
				st.Why += "; it would not apply here anyway: " + err.Error()
			case errors.Is(err, adapter.ErrInactive):
				st.State, st.Why = stateInactive.String(), err.Error()
			default:
				st.State, st.Why = stateOpenFailed.String(), err.Error()
			}
		} else if !enabled {
			st.Why += "; it applies here"
		}
	}
	return st
}

func disabledWhy(from settings.Layer) string {
	if from == settings.LayerDefault {
		return "off by default; set \"enabled\": true in its settings section to turn it on"
	}
	return fmt.Sprintf("disabled by %s settings", from)
}

// String renders the explanation for people, one adapter per paragraph.
func (e Explanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "app %s, reporting %s\n", e.App, map[bool]string{true: "attached", false: "not attached"}[e.Attached])
	fmt.Fprintf(&b, "host: mode=%s ui=%t role=%s\n", orUnset(string(e.Host.Mode)), e.Host.HasUI, orUnset(string(e.Host.Role)))
	for _, f := range e.Files {
		if f.TrustStore {
			fmt.Fprintf(&b, "trust store: %s", f.Path)
		} else {
			fmt.Fprintf(&b, "settings %s: %s", f.Layer, f.Path)
		}
		switch {
		case f.Condition == settings.ConditionUntrusted && f.TrustReason != "":
			fmt.Fprintf(&b, " (untrusted: %s)", f.TrustReason)
		case f.Condition.Valid():
			fmt.Fprintf(&b, " (%s)", f.Condition)
		}
		if f.Stale {
			b.WriteString(" [last good content in effect]")
		}
		if f.Err != "" {
			fmt.Fprintf(&b, ": %s", f.Err)
		}
		if f.Polling {
			b.WriteString(" [polled: cannot watch]")
		}
		b.WriteByte('\n')
	}
	for _, w := range e.Warnings {
		fmt.Fprintf(&b, "settings warning: %s\n", w)
	}
	for _, a := range e.Adapters {
		by := a.EnabledBy + " settings"
		if a.EnabledBy == settings.LayerDefault.String() {
			by = "default"
		}
		switch {
		case a.State == StateDisabled:
			fmt.Fprintf(&b, "\nadapter %s: disabled by %s\n", a.Name, by)
		case a.Enabled:
			fmt.Fprintf(&b, "\nadapter %s: %s, enabled by %s\n", a.Name, a.State, by)
		default:
			fmt.Fprintf(&b, "\nadapter %s: %s, disabled by %s\n", a.Name, a.State, by)
		}
		if a.Why != "" {
			fmt.Fprintf(&b, "  why: %s\n", a.Why)
		}
		if a.SettingsError != "" {
			fmt.Fprintf(&b, "  settings not applied: %s\n", a.SettingsError)
		}
		if a.LastReport != nil {
			fmt.Fprintf(&b, "  last report: %s (%s)", a.LastReport.State, a.LastReport.Reason)
			if a.LastReport.Message != "" {
				fmt.Fprintf(&b, " %q", a.LastReport.Message)
			}
			fmt.Fprintf(&b, " at %s\n", a.LastReport.At.Format(time.RFC3339))
		}
		c := a.Counters
		if c != (Counters{}) {
			fmt.Fprintf(&b, "  delivered %d, failed %d, retries %d, coalesced %d, unchanged %d, unknown %d\n",
				c.Delivered, c.Failed, c.Retries, c.Coalesced, c.Unchanged, c.Unknown)
		}
		for _, k := range slices.Sorted(maps.Keys(a.DiagnosticCounts)) {
			fmt.Fprintf(&b, "  diagnostics %s: %d\n", k, a.DiagnosticCounts[k])
		}
		for _, d := range a.Diagnostics {
			fmt.Fprintf(&b, "  %s %s: %s\n", d.At.Format(time.TimeOnly), d.Kind, d.Detail)
		}
		for _, k := range slices.Sorted(maps.Keys(a.Details)) {
			fmt.Fprintf(&b, "  %s: %s\n", k, a.Details[k])
		}
	}
	return b.String()
}

// JSON renders the explanation as indented JSON, for machines.
func (e Explanation) JSON() []byte {
	out, err := json.MarshalIndent(e, "", "  ")
	if err != nil { // only plain data: cannot happen
		return fmt.Appendf(nil, "{\"error\": %q}", err.Error())
	}
	return out
}

func orUnset(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}
