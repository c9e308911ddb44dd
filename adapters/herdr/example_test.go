package herdr_test

import (
	"context"
	"fmt"
	"os"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/session"
)

// The adapter against an emulated Herdr: open it with the pane's
// environment, report, and release. A host never does this by hand: the
// registry does.
func Example() {
	h, err := herdrtest.Start(herdrtest.Options{})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	state, err := os.MkdirTemp("", "panestate-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(state)

	ctx := context.Background()
	a, err := herdr.Driver{StateDir: state}.Open(ctx, adapter.Params{
		Name:     "herdr",
		App:      "myagent",
		Env:      adapter.Env(h.Env()),
		Host:     session.Host{Interactive: true, Root: true},
		Diagnose: func(d adapter.Diagnostic) { fmt.Println(d) },
	})
	if err != nil {
		panic(err)
	}
	defer a.(*herdr.Adapter).Close(ctx)

	a.Report(ctx, adapter.Report{State: adapter.StateBlocked, Message: adapter.MessageWaitingForApproval})
	info, _ := h.Agent(h.Pane)
	fmt.Println(info.Agent, info.AgentStatus)
	a.(*herdr.Adapter).Release(ctx)

	// The default transport, auto, pinged the server and found protocol
	// 20, so every call went over the socket: no process was spawned.
	calls, _ := h.Calls()
	for _, c := range calls {
		seq, _ := c.Seq()
		fmt.Println(c.Transport, c.Command, c.Pane, seq > 0)
	}
	fmt.Println(a.(adapter.Detailer).Details()["transport_used"])
	// Output:
	// myagent blocked
	// socket ping  false
	// socket pane report-agent w1:p1 true
	// socket pane release-agent w1:p1 true
	// socket
}

// Outside a Herdr pane Open says why, and nothing was started.
func ExampleDriver_Open_inactive() {
	_, err := herdr.Driver{}.Open(context.Background(), adapter.Params{Env: adapter.Env{"HOME=/home/u"}})
	fmt.Println(err)
	// Output:
	// herdr: adapter inactive: HERDR_ENV is not set (not inside a Herdr pane)
}
