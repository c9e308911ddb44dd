package noop_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/noop"
)

func Example() {
	ctx := context.Background()
	var d noop.Driver // the zero value is ready
	enabled, _ := d.Settings()
	fmt.Println("enabled by default:", enabled)

	a, err := d.Open(ctx, adapter.Params{Name: "noop"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("report:", a.Report(ctx, adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}))
	na := a.(*noop.Adapter) // the registry finds Release and Close by type assertion
	fmt.Println("release:", na.Release(ctx))
	fmt.Println("close:", na.Close(ctx))
	err = a.Report(ctx, adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent})
	fmt.Println("report after close is ErrClosed:", errors.Is(err, adapter.ErrClosed))
	// Output:
	// enabled by default: false
	// report: <nil>
	// release: <nil>
	// close: <nil>
	// report after close is ErrClosed: true
}
