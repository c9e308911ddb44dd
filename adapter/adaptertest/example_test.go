package adaptertest_test

import (
	"context"
	"fmt"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
)

func ExampleRecorder() {
	ctx := context.Background()
	rec := adaptertest.NewRecorder()

	// In a host's test the registry makes these calls; here we make them.
	_ = rec.Report(ctx, adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting})
	_ = rec.Report(ctx, adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval})
	_ = rec.Release(ctx)
	_ = rec.Close(ctx)

	for _, r := range rec.Reports() {
		fmt.Println(r)
	}
	fmt.Println("released:", rec.Released(), "closed:", rec.Closed())
	// Output:
	// working (executing)
	// blocked (awaiting_input) "Waiting for approval"
	// released: 1 closed: true
}

func ExampleRecorder_Wait() {
	ctx := context.Background()
	rec := adaptertest.NewRecorder()

	done := make(chan struct{})
	go func() { // stands in for the registry's delivery goroutine
		defer close(done)
		_ = rec.Report(ctx, adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting})
		_ = rec.Report(ctx, adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent})
	}()

	err := rec.Wait(ctx, func(reports []adapter.Report) bool {
		return len(reports) > 0 && reports[len(reports)-1].State == adapter.StateIdle
	})
	<-done
	last, _ := rec.Last()
	fmt.Println(err, last)
	// Output:
	// <nil> idle (quiescent)
}

func ExampleRecorder_Block() {
	ctx := context.Background()
	rec := adaptertest.NewRecorder()
	rec.Block() // the workspace hangs

	errc := make(chan error, 1)
	go func() {
		errc <- rec.Report(ctx, adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting})
	}()
	// Wait until the call has arrived, then let it through.
	_ = rec.WaitCalls(ctx, func(calls []adapter.Report) bool { return len(calls) == 1 })
	fmt.Println("delivered while blocked:", len(rec.Reports()))
	rec.Unblock()
	fmt.Println("report error:", <-errc, "delivered:", len(rec.Reports()))
	// Output:
	// delivered while blocked: 0
	// report error: <nil> delivered: 1
}

func ExampleDriver() {
	rec := adaptertest.NewRecorder()
	// A host's test would pass this in registry.Options.Drivers.
	d := &adaptertest.Driver{Recorder: rec, Default: false}

	a, err := d.Open(context.Background(), adapter.Params{Name: "recorder"})
	enabled, _ := d.Settings()
	fmt.Println(a == adapter.Adapter(rec), err, enabled)
	// Output:
	// true <nil> false
}
