package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// A report's message is one of a fixed set: nothing the agent says can reach
// a workspace.
func ExampleReport() {
	r := adapter.Report{
		State:   adapter.StateBlocked,
		Reason:  adapter.ReasonAwaitingInput,
		Message: adapter.MessageWaitingForApproval,
	}
	fmt.Println(r.State, r.Message)
	fmt.Println(r)
	// Output:
	// blocked Waiting for approval
	// blocked (awaiting_input) "Waiting for approval"
}

// Only an interactive root session may claim a pane.
func ExampleCheckHost() {
	h := session.Host{Root: true}
	fmt.Println(adapter.CheckHost(h))
	// Output: adapter inactive: not an interactive root session: the host is not interactive (a print, JSON or RPC run, or no UI)
}

// Diagnostics are bounded: one line, at most MaxDetail bytes.
func ExampleNewDiagnostic() {
	d := adapter.NewDiagnostic("herdr", adapter.KindProtocolRejected, "exit %d: %s\n", 1, "server_not_running")
	fmt.Println(d)
	// Output: herdr: protocol_rejected: exit 1: server_not_running
}

// An adapter reads its duration settings in the common form, then checks
// the range itself.
func ExampleParseDuration() {
	for _, raw := range []string{`"2s"`, `750`, ``, `"soon"`} {
		d, err := adapter.ParseDuration("timeout", json.RawMessage(raw), 5*time.Second)
		fmt.Println(d, err)
	}
	// Output:
	// 2s <nil>
	// 750ms <nil>
	// 5s <nil>
	// 0s timeout "soon" is not a duration (want e.g. "5s" or a number of milliseconds)
}

// An adapter checks for withdrawal just before a request leaves the process;
// once it has left, it waits for the answer.
func ExampleWithdrawn() {
	send := func(ctx context.Context) error {
		select {
		case <-adapter.Withdrawn(ctx):
			return fmt.Errorf("report: %w", adapter.ErrWithdrawn)
		default:
		}
		// write the request, then wait for the answer or ctx
		return nil
	}
	ctx, withdraw := adapter.WithWithdraw(context.Background())
	fmt.Println(send(ctx))
	withdraw()
	withdraw() // idempotent
	fmt.Println(send(ctx))
	// Output:
	// <nil>
	// report: adapter: report withdrawn before it was sent
}
