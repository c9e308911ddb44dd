package adapter

// MaxChildren bounds the subagents a report carries as children: well
// under the 64 records a terminal keeps at the least (revision 0.4 of the
// Program Status Protocol), so that a pane's records never push another
// program's out.
const MaxChildren = 8

// Child is one subagent of the session, as a report carries it: its id
// (an identifier the agent gave it, never anything it said) and its own
// state, working or blocked, with the fixed message of what it waits
// for. The zero Child is no child.
type Child struct {
	ID      string  `json:"id"`
	State   State   `json:"state"`
	Message Message `json:"message,omitempty"`
}

// Children are a report's subagents, the first started first, at most
// [MaxChildren]; unused entries are zero. It is an array, so that a
// report stays comparable.
type Children [MaxChildren]Child

// Len returns the number of children.
func (c *Children) Len() int {
	n := 0
	for n < len(c) && c[n].ID != "" {
		n++
	}
	return n
}

// ChildReporter is implemented by an adapter that shows a report's
// children (the progstatus adapter's child records). The registry hands
// every other adapter reports without children, and does not deliver a
// report to it whose only change is in its children: a Herdr or tmux pane
// holds one agent and shows the parent's reduced state only.
type ChildReporter interface {
	// ReportsChildren returns true.
	ReportsChildren() bool
}
