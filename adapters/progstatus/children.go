package progstatus

import (
	"context"

	"github.com/panestate/panestate/adapter"
)

var _ adapter.ChildReporter = (*Adapter)(nil)

// ReportsChildren returns true: the adapter shows a report's children,
// the session's subagents, as child records of its own.
func (*Adapter) ReportsChildren() bool { return true }

// childStatus is the child record of c under the adapter's record app.
// It has no app: revision 0.4 has a child inherit its nearest ancestor's,
// and Charm's encoder, given none, writes none.
func childStatus(app, id string, c adapter.Child) Status {
	st := Status{State: "working", ID: app + "/" + id}
	if c.State == adapter.StateBlocked {
		st.State, st.Message = "blocked", c.Message.String()
		switch c.Message {
		case adapter.MessageWaitingForApproval:
			st.Kind = "permission"
		case adapter.MessageWaitingForInput:
			st.Kind = "question"
		}
	}
	return st
}

// childrenLocked brings the child records in line with children: a
// record for each child that is new or changed, a clear for each that
// finished, each in one Write, at most adapter.MaxChildren records in all.
// A child whose id, made a name, is one another child already has is not
// shown. a.mu is held.
func (a *Adapter) childrenLocked(ctx context.Context, children *adapter.Children) error {
	app := a.statuses[recordNone].ID
	want := make(map[string]Status, adapter.MaxChildren)
	for _, c := range children {
		if c.ID == "" {
			continue
		}
		st := childStatus(app, appName(c.ID), c)
		if _, dup := want[st.ID]; !dup {
			want[st.ID] = st
		}
	}
	for id := range a.kids {
		if _, ok := want[id]; !ok {
			if err := a.writeStatusLocked(ctx, Status{State: "clear", ID: id}); err != nil {
				return err
			}
			delete(a.kids, id)
		}
	}
	for _, c := range children { // in the order they started
		if c.ID == "" {
			continue
		}
		st, ok := want[app+"/"+appName(c.ID)]
		if !ok || a.kids[st.ID] == st {
			continue
		}
		if err := a.writeStatusLocked(ctx, st); err != nil {
			return err
		}
		if a.kids == nil {
			a.kids = make(map[string]Status, adapter.MaxChildren)
		}
		a.kids[st.ID] = st
		delete(want, st.ID) // a duplicate name is written once
	}
	return nil
}

// writeStatusLocked writes st, wrapped for tmux when the adapter wraps.
// a.mu is held.
func (a *Adapter) writeStatusLocked(ctx context.Context, st Status) error {
	seq := st.Sequence()
	if a.how.tmux {
		seq = wrapTmux(seq)
	}
	return a.writeLocked(ctx, seq, true)
}
