package progstatus_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/progstatus"
	"github.com/panestate/panestate/session"
)

func Example() {
	ctx := context.Background()
	var tty strings.Builder // stands for the host's terminal
	p := adapter.Params{
		Name:     "progstatus",
		App:      "My Chat",
		Env:      adapter.Env{"PANESTATE_PROGSTATUS=1"}, // the host's probe found the protocol
		Host:     session.Host{Interactive: true, Root: true},
		Terminal: &tty,
		Diagnose: func(adapter.Diagnostic) {},
	}
	a, err := progstatus.Driver{}.Open(ctx, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range []adapter.Report{
		{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent},
		{State: adapter.StateWorking, Reason: adapter.ReasonExecuting},
		{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval},
		{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent},
	} {
		_ = a.Report(ctx, r)
	}
	_ = a.(*progstatus.Adapter).Release(ctx)
	_ = a.(*progstatus.Adapter).Close(ctx)
	for seq := range strings.SplitSeq(strings.TrimSuffix(tty.String(), "\a"), "\a") {
		fmt.Println(strings.TrimPrefix(seq, "\x1b]7501;"))
	}
	// Output:
	// state=idle:id=My-Chat:app=My-Chat
	// state=working:id=My-Chat:app=My-Chat
	// state=blocked:id=My-Chat:kind=permission:app=My-Chat:msg=V2FpdGluZyBmb3IgYXBwcm92YWw=
	// state=done:id=My-Chat:app=My-Chat
	// state=clear:id=My-Chat
}

func ExampleDriver_Check() {
	p := adapter.Params{
		Env:      adapter.Env{"TMUX=/tmp/tmux-1000/default,4242,0"},
		Host:     session.Host{Interactive: true, Root: true},
		Terminal: new(strings.Builder),
	}
	fmt.Println(progstatus.Driver{}.Check(p))
	// Output:
	// progstatus: adapter inactive: inside tmux (TMUX is set), which drops OSC 7501 and does not pass the probe's answer back; set progstatus.enabled to true and tmux's allow-passthrough to on to report to the terminal tmux runs in
}
