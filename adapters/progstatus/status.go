package progstatus

import (
	"github.com/panestate/panestate/adapter"
)

// Status is one Program Status record as this package writes it. Its
// fields are those of Charm's ansi.ProgramStatus, and so of Bubble Tea
// v2's tea.ProgramStatus, that the adapter uses, as strings of the same
// values, so that a host hands a record to its own View with a plain
// conversion (docs/progstatus.md shows it) and its UI writes exactly the
// bytes this package would have written: [Status.Sequence] is, byte for
// byte, what Charm's encoder (ansi.SetProgramStatus) writes for the same
// values, and the tests hold the two together.
type Status struct {
	// State is "idle", "working", "blocked", "done" or "clear".
	State string
	// ID addresses the record: the application's name, never "" (the root
	// record, which belongs to whoever owns the tab); a subagent's record
	// is <app>/<its id made a name>.
	ID string
	// App is the application's name, sent with every report of the
	// adapter's own record but clear; a subagent's record has none and
	// inherits it (revision 0.4).
	App string
	// Kind is "permission" or "question" with State "blocked", else "".
	Kind string
	// Message is one of the fixed texts of [adapter.Message], or "".
	Message string
}

// Sequence returns the record as one OSC 7501 sequence, in the order and
// with the terminator of Charm's encoder: state, id, kind, app, msg
// (base64), then BEL; a clear carries only state and id. It returns nil
// when the record would break a rule of revision 0.4, which no Status this
// package makes does.
func (s Status) Sequence() []byte {
	pairs := []pair{{key: "state", value: s.State}, {key: "id", value: s.ID}}
	if s.State != "clear" {
		if s.Kind != "" {
			pairs = append(pairs, pair{key: "kind", value: s.Kind})
		}
		if s.App != "" {
			pairs = append(pairs, pair{key: "app", value: s.App})
		}
		if s.Message != "" {
			pairs = append(pairs, pair{key: "msg", value: s.Message, text: true})
		}
	}
	seq, err := encode(pairs...)
	if err != nil {
		return nil
	}
	return seq
}

// statuses returns, for the application named app (already a valid name),
// the record of every record kind, the goodbye (clear) at index
// recordNone.
func statuses(app string) [numRecords]Status {
	st := func(state, kind string, m adapter.Message) Status {
		return Status{State: state, ID: app, App: app, Kind: kind, Message: m.String()}
	}
	return [numRecords]Status{
		recordNone:       {State: "clear", ID: app},
		recordIdle:       st("idle", "", adapter.MessageNone),
		recordWorking:    st("working", "", adapter.MessageNone),
		recordPermission: st("blocked", "permission", adapter.MessageWaitingForApproval),
		recordQuestion:   st("blocked", "question", adapter.MessageWaitingForInput),
		recordAttention:  st("blocked", "", adapter.MessageWorkflowNeedsAttention),
		recordBlocked:    st("blocked", "", adapter.MessageNone),
		recordDone:       st("done", "", adapter.MessageNone),
	}
}
