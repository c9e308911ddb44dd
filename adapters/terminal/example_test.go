package terminal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/terminal"
	"github.com/panestate/panestate/session"
)

func Example() {
	ctx := context.Background()
	var tty strings.Builder // stands for the host's terminal
	p := adapter.Params{
		Name:     "terminal",
		App:      "mychat",
		Settings: json.RawMessage(`{"notify": true}`),
		Env:      adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.6"},
		Host:     session.Host{Interactive: true, Root: true},
		Terminal: &tty,
		Diagnose: func(adapter.Diagnostic) {},
	}
	opened, err := terminal.Driver{}.Open(ctx, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	a := opened.(*terminal.Adapter)
	for _, r := range []adapter.Report{
		{State: adapter.StateWorking, Reason: adapter.ReasonExecuting},
		{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval},
		{State: adapter.StateIdle, Reason: adapter.ReasonCompleted},
	} {
		_ = a.Report(ctx, r)
		fmt.Printf("%-8s refresh after %v\n", r.State, a.RefreshInterval(r))
	}
	_ = a.Release(ctx)
	_ = a.Close(ctx)
	fmt.Printf("%q\n", tty.String())
	// Output:
	// working  refresh after 10s
	// blocked  refresh after 10s
	// idle     refresh after 0s
	// "\x1b]9;4;3\x1b\\\x1b]9;4;4;100\x1b\\\x1b]9;mychat: Waiting for approval\x1b\\\x1b]9;4;0\x1b\\\x1b]9;4;0\x1b\\"
}

func ExampleDriver_Check() {
	p := adapter.Params{
		Env:      adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.5.14"},
		Host:     session.Host{Interactive: true, Root: true},
		Terminal: new(strings.Builder),
	}
	fmt.Println(terminal.Driver{}.Check(p))
	// Output:
	// terminal: adapter inactive: iTerm2 3.5.14 is older than iTerm2 3.6.6, the first to show OSC 9;4; set terminal.enabled to true to force it
}
