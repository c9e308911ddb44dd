package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/noop"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/internal/safetext"
	"github.com/panestate/panestate/internal/settingsengine"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// Explanation answers "why does my pane show nothing?": for every adapter,
// whether it is enabled and by which settings layer, whether it applies here
// and if not why, what it last delivered, and its diagnostics and counters.
// It is plain data: encoding/json renders it for machines (escaping what a
// terminal would act on: see MarshalJSON), String for people.
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
	// that made it.
	Enabled   bool           `json:"enabled"`
	EnabledBy settings.Layer `json:"enabled_by"`
	// Lifecycle is where the adapter is: active, disabled, inactive, ...
	Lifecycle Lifecycle `json:"lifecycle"`
	// Why says why the adapter is not active (the failed condition, the
	// conflicting reporter, the settings error), or, before Attach, that it
	// applies here. For a running adapter whose new settings could not be
	// applied (it was kept, with its old ones), it starts with "settings
	// not applied".
	Why string `json:"why,omitempty"`
	// LastReport is the last report delivered, if any, and LastReportAt
	// when it was delivered.
	LastReport   *adapter.Report `json:"last_report,omitempty"`
	LastReportAt time.Time       `json:"last_report_at,omitzero"`
	Counters     Counters        `json:"counters"`
	// Diagnostics holds one record per kind the adapter emitted, oldest
	// first: the last one the registry logged and passed to
	// Options.OnDiagnostic (the first of its kind in each claim, that is
	// each time the adapter was opened), with the count of every one of
	// that kind, repeats included.
	Diagnostics []DiagnosticRecord `json:"diagnostics,omitempty"`
	// Details are the adapter's own lines (adapter.Detailer) while it is
	// open; before, the setup its driver previews (adapter.Previewer).
	Details map[string]string `json:"details,omitempty"`
}

// DiagnosticRecord is the last diagnostic of one kind the registry passed
// on, when, and how many of that kind the adapter emitted in all.
type DiagnosticRecord struct {
	adapter.Diagnostic
	At    time.Time `json:"at"`
	Count uint64    `json:"count"`
}

// Counters count what happened to the states the adapter was given. Every
// failed delivery is retried for as long as it is the newest state.
type Counters struct {
	Delivered uint64 `json:"delivered"` // reports delivered, refreshes included
	Failed    uint64 `json:"failed"`    // deliveries that failed
	Unchanged uint64 `json:"unchanged"` // reports not sent because equal to the last delivered
	Unknown   uint64 `json:"unknown"`   // snapshots that gave no new report (workflow state unknown)
}

// Explain describes every adapter of the registry. On an attached registry it
// shows the live state. Before Attach (or after Detach) it reads the settings
// once and asks each driver whether it would apply here and, for one that
// would, whether its settings section would make Open fail
// (adapter.Checker) and, when it would not, the setup the adapter would
// take (adapter.Previewer, shown as its Details), without opening
// anything; a trust function (settings.Options.Trust) that hangs delays
// that read by up to half a second once, not on every call, as the
// registry keeps one settings reader. It never waits for an adapter or a
// settings change, is safe to call at any time from any goroutine, and a
// panic in an adapter's Details or a driver's Check or Preview is
// recovered (recorded as adapter_panic; the adapter keeps running).
func (r *Registry) Explain() Explanation {
	r.mustBeMade()
	type seen struct {
		st AdapterStatus
		a  adapter.Adapter // running adapter, for its details
	}
	r.mu.Lock()
	attached, cur, watcher := r.attachment.attached(), r.cur, r.watcher
	views := make([]seen, len(r.entries))
	for i, s := range r.entries {
		st := AdapterStatus{
			Name: s.name, Lifecycle: s.life, Why: s.why,
			Counters: Counters{
				Delivered: s.delivered.Load(), Failed: s.failed.Load(),
				Unchanged: s.unchanged.Load(), Unknown: s.unknown.Load(),
			},
		}
		if s.settingsErr != "" {
			st.Why = joinWhy("settings not applied (the adapter runs with its previous settings): "+s.settingsErr, st.Why)
		}
		for _, d := range s.diags {
			st.Diagnostics = append(st.Diagnostics, *d)
		}
		slices.SortFunc(st.Diagnostics, func(a, b DiagnosticRecord) int {
			if c := a.At.Compare(b.At); c != 0 {
				return c
			}
			return strings.Compare(string(a.Kind), string(b.Kind))
		})
		if s.haveLast {
			last := s.last
			st.LastReport, st.LastReportAt = &last, s.lastAt
		}
		views[i] = seen{st: st}
		if s.w != nil {
			views[i].a = s.w.a
		}
	}
	r.mu.Unlock()
	if !attached {
		// Read the files once, silently: Explain describes, it does not log.
		cur, _ = r.readSettings()
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
	for i, s := range r.entries {
		st := views[i].st
		st.Enabled, st.EnabledBy = cur.Enabled(s.name, s.def)
		if a := views[i].a; a != nil {
			r.guard(s, "Details", func() {
				st.Details = optional.Details(a)
				if st.Lifecycle == LifecycleActive && !optional.OwnsPane(a) {
					st.Lifecycle, st.Why = LifecycleStaleOwner, "a newer claim holds the pane (another host in it, or a newer registry of this process); this adapter sends nothing until that claim is released or its process exits, then takes the pane back"
				}
			})
		}
		if _, template := s.driver.(noop.Driver); template && !st.Enabled && views[i].a == nil {
			// The noop adapter is a template for adapter authors:
			// nothing to explain to a user who never enabled it.
			continue
		}
		r.whetherApplies(s, &st, attached, cur)
		e.Adapters = append(e.Adapters, st)
	}
	return e
}

// whetherApplies completes st for an adapter that is not running: before
// Attach every adapter says whether it applies here; a disabled one says
// whether it would. One that applies but whose settings section the driver
// rejects (adapter.Checker) says so: before Attach it is
// LifecycleOpenFailed, as Open would leave it. One that applies with valid
// settings shows the setup its driver previews (adapter.Previewer) as its
// details.
func (r *Registry) whetherApplies(s *entry, st *AdapterStatus, attached bool, cur settingsengine.Settings) {
	if attached && st.Lifecycle != LifecycleDisabled {
		return
	}
	if !attached && st.Lifecycle == LifecycleUnreleased {
		return
	}
	if !attached {
		st.Lifecycle, st.Why = LifecycleNotAttached, ""
		if !st.Enabled {
			st.Lifecycle, st.Why = LifecycleDisabled, disabledWhy(st.EnabledBy)
		}
	}
	err := r.check(s, cur)
	var bad error // the settings error Open would fail with
	if err == nil {
		bad = r.validate(s, cur)
	}
	switch {
	case err != nil && !st.Enabled:
		st.Why += "; it would not apply here anyway: " + err.Error()
	case err != nil && errors.Is(err, adapter.ErrInactive):
		st.Lifecycle, st.Why = LifecycleInactive, err.Error()
	case err != nil:
		st.Lifecycle, st.Why = LifecycleOpenFailed, err.Error()
	case bad != nil && !st.Enabled:
		st.Why += "; it applies here, but its settings would make it fail to open: " + bad.Error()
	case bad != nil:
		st.Lifecycle, st.Why = LifecycleOpenFailed, "it applies here, but would fail to open: "+bad.Error()
	case !st.Enabled:
		st.Why += "; it applies here"
	default:
		st.Why = "it applies here and runs when reporting is attached"
	}
	if err == nil && bad == nil && st.Details == nil {
		st.Details = r.preview(s, cur)
	}
}

// preview returns the setup s's driver would give its adapter
// (adapter.Previewer), for an adapter that applies and is not open;
// guarded: nil when the driver has none or it panicked.
func (r *Registry) preview(s *entry, cur settingsengine.Settings) (details map[string]string) {
	p := r.params(s, cur)
	if r.guard(s, "Preview", func() { details = optional.Preview(s.driver, p) }) {
		return nil
	}
	return details
}

// String renders the explanation for people, one adapter per paragraph.
// Every string that came from outside the program (the environment, the
// settings files, a workspace's answers, an adapter's details) is printed
// as [adapter.Bound] leaves it: one line, without control characters or
// bidirectional controls, so that printing the explanation on a terminal
// can neither run escape sequences nor reorder what is shown.
func (e Explanation) String() string {
	var b strings.Builder
	var active []string
	for _, a := range e.Adapters {
		if a.Lifecycle == LifecycleActive {
			active = append(active, safe(a.Name))
		}
	}
	switch {
	case !e.Attached:
		fmt.Fprintf(&b, "app %s, reporting not attached\n", safe(e.App))
	case len(active) == 0:
		fmt.Fprintf(&b, "app %s, attached, but no adapter runs here: nothing is reported\n", safe(e.App))
	default:
		fmt.Fprintf(&b, "app %s, reporting to %s\n", safe(e.App), strings.Join(active, ", "))
	}
	fmt.Fprintf(&b, "host: interactive=%t root=%t\n", e.Host.Interactive, e.Host.Root)
	for _, f := range e.Files {
		if f.TrustStore {
			fmt.Fprintf(&b, "trust store: %s", safe(f.Path))
		} else {
			fmt.Fprintf(&b, "settings %s: %s", f.Layer, safe(f.Path))
		}
		switch {
		case f.Condition == settings.ConditionUntrusted && f.TrustReason != "":
			fmt.Fprintf(&b, " (untrusted: %s)", safe(f.TrustReason))
		case f.Condition != "":
			fmt.Fprintf(&b, " (%s)", f.Condition)
		}
		if f.Stale {
			b.WriteString(" [last good content in effect]")
		}
		if f.Err != "" {
			fmt.Fprintf(&b, ": %s", safe(f.Err))
		}
		if f.Polling {
			b.WriteString(" [polled: cannot watch]")
		}
		b.WriteByte('\n')
	}
	for _, w := range e.Warnings {
		fmt.Fprintf(&b, "settings warning: %s\n", safe(w))
	}
	for _, a := range e.Adapters {
		by := string(a.EnabledBy) + " settings"
		if a.EnabledBy == settings.LayerDefault {
			by = "default"
		}
		switch {
		case a.Lifecycle == LifecycleDisabled:
			fmt.Fprintf(&b, "\nadapter %s: disabled by %s\n", safe(a.Name), by)
		case a.Enabled:
			fmt.Fprintf(&b, "\nadapter %s: %s, enabled by %s\n", safe(a.Name), a.Lifecycle.words(), by)
		default:
			fmt.Fprintf(&b, "\nadapter %s: %s, disabled by %s\n", safe(a.Name), a.Lifecycle.words(), by)
		}
		if a.Why != "" {
			fmt.Fprintf(&b, "  why: %s\n", safe(a.Why))
		}
		if a.LastReport != nil {
			fmt.Fprintf(&b, "  last report: %s at %s\n", safe(a.LastReport.String()), a.LastReportAt.Format(time.RFC3339))
		}
		c := a.Counters
		if c != (Counters{}) {
			fmt.Fprintf(&b, "  delivered %d, failed %d, unchanged %d, unknown %d\n",
				c.Delivered, c.Failed, c.Unchanged, c.Unknown)
		}
		for _, d := range a.Diagnostics {
			fmt.Fprintf(&b, "  %s %s: %s (%d in all)\n", d.At.Format(time.TimeOnly), safe(string(d.Kind)), safe(d.Detail), d.Count)
		}
		for _, k := range slices.Sorted(maps.Keys(a.Details)) {
			fmt.Fprintf(&b, "  %s: %s\n", safe(k), safe(a.Details[k]))
		}
	}
	return b.String()
}

// MarshalJSON encodes e as encoding/json does, except that every rune
// String would clean and encoding/json leaves as it is (C1 controls, the
// bidirectional controls, in the outside strings e holds: the host's
// identity and extensions, paths, reasons, an adapter's details) is written
// as a \uXXXX escape: the same JSON value, safe to print on a terminal.
func (e Explanation) MarshalJSON() ([]byte, error) {
	type plain Explanation // the same fields, without this method
	data, err := json.Marshal(plain(e))
	if err != nil {
		return nil, err
	}
	return safetext.JSON(data), nil
}

// joinWhy joins two reasons with "; ", either of which may be empty.
func joinWhy(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// maxShown bounds each outside string String prints: a path, a reason, a
// detail.
const maxShown = 4096

// safe returns s as String prints a string that came from outside the
// program (see String).
func safe(s string) string { return adapter.Bound(s, maxShown) }
