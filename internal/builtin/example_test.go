package builtin_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/panestate/panestate/internal/builtin"
	"github.com/panestate/panestate/session"
)

// Only an interactive root session may claim a pane.
func ExampleCheckHost() {
	h := session.Host{Root: true}
	fmt.Println(builtin.CheckHost(h))
	// Output: adapter inactive: not an interactive root session: the host is not interactive (a print, JSON or RPC run, or no UI)
}

// An adapter reads its duration settings in the common form, then checks
// the range itself.
func ExampleParseDuration() {
	for _, raw := range []string{`"2s"`, `750`, ``, `"soon"`} {
		d, err := builtin.ParseDuration("timeout", json.RawMessage(raw), 5*time.Second)
		fmt.Println(d, err)
	}
	// Output:
	// 2s <nil>
	// 750ms <nil>
	// 5s <nil>
	// 0s timeout "soon" is not a duration (want e.g. "5s" or a number of milliseconds)
}
