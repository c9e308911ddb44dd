package herdr

import "fmt"

// Op is a Herdr operation on a pane.
type Op uint8

// Herdr operations.
const (
	// OpReport sets the pane's agent state: `herdr pane report-agent`, or
	// pane.report_agent on the socket.
	OpReport Op = iota + 1
	// OpRelease hands the pane back: `herdr pane release-agent`, or
	// pane.release_agent on the socket.
	OpRelease
)

// String returns the CLI subcommand, "report-agent" or "release-agent".
func (o Op) String() string {
	switch o {
	case OpReport:
		return "report-agent"
	case OpRelease:
		return "release-agent"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// MarshalText returns the CLI subcommand, as String does; an unknown Op is
// an error.
func (o Op) MarshalText() ([]byte, error) {
	if o != OpReport && o != OpRelease {
		return nil, fmt.Errorf("herdr: unknown operation %d", uint8(o))
	}
	return []byte(o.String()), nil
}

// method returns the socket method of o.
func (o Op) method() string {
	if o == OpRelease {
		return "pane.release_agent"
	}
	return "pane.report_agent"
}
