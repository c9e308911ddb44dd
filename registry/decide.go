package registry

// This file holds the registry's one decision: what a settings change, or
// Attach, does to each adapter. It is a pure function of four facts, so that
// every combination is written down and tested (decide_test.go); the code
// that opens, swaps and stops adapters (apply.go) only carries it out.

// action is what happens to one adapter.
type action uint8

const (
	// actNothing leaves the adapter as it is: turned on but not running,
	// and nothing that could change that has changed.
	actNothing action = iota
	// actKeep keeps the running adapter: its settings did not change.
	actKeep
	// actOpen opens the adapter with the new section and starts reporting
	// the current state at once.
	actOpen
	// actReopen opens a successor with the new section, swaps it in and
	// closes the old one without a release (the successor takes the pane
	// over, and makes no call before the old one is done). If the
	// successor fails to open, the old one keeps running.
	actReopen
	// actStop drains the running adapter (its delivery in flight is
	// withdrawn: dropped if not sent, waited for if it may have been),
	// releases and closes it.
	actStop
	// actMarkDisabled records that the settings (or the default) turn the
	// adapter off, and which layer does. Nothing runs.
	actMarkDisabled
)

var actionNames = [...]string{"nothing", "keep", "open", "reopen", "stop", "mark disabled"}

func (a action) String() string { return actionNames[a] }

// facts are what decide looks at for one adapter.
type facts struct {
	life    Lifecycle // where the adapter is now
	enabled bool      // the new settings turn it on
	changed bool      // its settings section differs from the one last acted on
	applies bool      // its driver's Check passes (asked only of an inactive adapter)
}

// decide returns what to do with one adapter. It is total: every
// combination of facts has an answer.
//
//   - A running adapter is stopped when turned off, reopened when its section
//     changed, kept otherwise.
//   - A stopped adapter turned off is marked disabled, again when it
//     already is: the layer that turns it off may be another one now.
//   - A stopped adapter turned on is opened when it has not been tried
//     (before Attach, or disabled until now): Open is the authority on
//     whether it applies, and an inactive driver's Open starts nothing.
//   - One that failed (inactive, open failed, panicked, left unreleased) is
//     opened again only when its section changed, or, when inactive, when
//     its driver's Check now says it applies: trying the same again would
//     only fail again.
func decide(f facts) action {
	if f.life == LifecycleActive || f.life == LifecycleStaleOwner {
		switch {
		case !f.enabled:
			return actStop
		case f.changed:
			return actReopen
		default:
			return actKeep
		}
	}
	if !f.enabled {
		return actMarkDisabled
	}
	switch {
	case f.life == LifecycleNotAttached, f.life == LifecycleDisabled, f.changed:
		return actOpen
	case f.life == LifecycleInactive && f.applies:
		return actOpen
	}
	return actNothing
}
