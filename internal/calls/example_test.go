package calls_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/calls"
)

// pane is the skeleton of an adapter that calls its workspace: one call at
// a time, Close ends the call in flight, and a failing workspace is told
// once per claim.
type pane struct {
	gate    *calls.Gate
	diags   *calls.Diagnostics
	claimed bool
	down    bool // the workspace fails every call
}

func (p *pane) Report(ctx context.Context, r adapter.Report) error {
	if err := p.gate.Enter(ctx); err != nil {
		return err
	}
	defer p.gate.Leave()
	if !p.claimed {
		p.claimed = true
		p.diags.Reset()
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(p.gate.Closing(), cancel)() // Close ends the call
	if err := p.call(cctx); err != nil {
		p.diags.Emit(adapter.KindProtocolRejected, "report: %v", err)
		return err
	}
	return nil
}

func (p *pane) call(ctx context.Context) error {
	if p.down {
		return errors.New("server_not_running")
	}
	return ctx.Err()
}

func Example() {
	var p pane
	p.gate = calls.NewGate()
	p.diags = calls.NewDiagnostics("mux", func(d adapter.Diagnostic) { fmt.Println("diagnostic:", d) })
	p.down = true
	ctx := context.Background()
	for range 3 { // the registry retries; one diagnostic is sent
		_ = p.Report(ctx, adapter.Report{State: adapter.StateWorking})
	}
	lines := map[string]string{}
	p.diags.AddDetails(lines)
	fmt.Println("explain:", lines)

	_ = p.gate.Close(ctx)
	fmt.Println("after close:", p.Report(ctx, adapter.Report{State: adapter.StateIdle}))
	// Output:
	// diagnostic: mux: protocol_rejected: report: server_not_running
	// explain: map[diag.protocol_rejected:3]
	// after close: adapter closed
}
