package herdrtest_test

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

func ExampleStart() {
	h, err := herdrtest.Start(herdrtest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()

	cmd := exec.Command(h.Bin, "pane", "report-agent", h.Pane,
		"--source", "custom:demo", "--agent", "demo", "--state", "working", "--seq", "1")
	cmd.Env = append(os.Environ(), h.Env()...)
	if err := cmd.Run(); err != nil {
		fmt.Println(err)
		return
	}
	info, err := h.Agent(h.Pane)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Agent, info.AgentStatus)
	calls, _ := h.Calls()
	seq, _ := calls[0].Flag("seq")
	fmt.Println(calls[0].Command, seq, calls[0].Exit)
	// Output:
	// demo working
	// pane report-agent 1 0
}

// A working→idle completion on a pane the user is not looking at shows as
// "done" until the pane is focused.
func ExampleHerdr_Focus() {
	h, err := herdrtest.Start(herdrtest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()

	for i, state := range []string{"working", "idle"} {
		cmd := exec.Command(h.Bin, "pane", "report-agent", h.Pane,
			"--source", "custom:demo", "--agent", "demo", "--state", state, "--seq", fmt.Sprint(i+1))
		cmd.Env = append(os.Environ(), h.Env()...)
		if err := cmd.Run(); err != nil {
			fmt.Println(err)
			return
		}
	}
	info, _ := h.Agent(h.Pane)
	fmt.Println(info.AgentStatus)
	if err := h.Focus(h.Pane); err != nil {
		fmt.Println(err)
		return
	}
	info, _ = h.Agent(h.Pane)
	fmt.Println(info.AgentStatus)
	// Output:
	// done
	// idle
}
