package adapter_test

import (
	"context"
	"fmt"

	"github.com/panestate/panestate/adapter"
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

// Diagnostics are bounded: one line, at most MaxDetail bytes.
func ExampleNewDiagnostic() {
	d := adapter.NewDiagnostic("herdr", adapter.KindProtocolRejected, "exit %d: %s\n", 1, "server_not_running")
	fmt.Println(d)
	// Output: herdr: protocol_rejected: exit 1: server_not_running
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

// An adapter that must act on a withdrawal while it waits (end a wait for
// its turn, say) registers a function instead of watching the channel in a
// goroutine of its own: nothing runs unless the withdrawal comes.
func ExampleAfterWithdraw() {
	ctx, withdraw := adapter.WithWithdraw(context.Background())
	wait, endWait := context.WithCancel(ctx)
	stop := adapter.AfterWithdraw(ctx, endWait)
	defer stop()
	withdraw()
	<-wait.Done() // the wait ends: withdrawn
	fmt.Println(context.Cause(wait))
	// Output:
	// context canceled
}
