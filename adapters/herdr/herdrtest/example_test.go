package herdrtest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

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
	fmt.Println(calls[0].Transport, calls[0].Command, seq, calls[0].Exit)
	// Output:
	// demo working
	// cli pane report-agent 1 0
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

// Wait blocks until the pane shows what the test expects, however the
// report gets there: here a fake CLI process started in the background.
func ExampleHerdr_Wait() {
	h, err := herdrtest.Start(herdrtest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()

	cmd := exec.Command(h.Bin, "pane", "report-agent", h.Pane,
		"--source", "custom:demo", "--agent", "demo", "--state", "blocked", "--seq", "1")
	cmd.Env = append(os.Environ(), h.Env()...)
	if err := cmd.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer cmd.Wait()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := h.Wait(ctx, h.Pane, func(a herdrtest.AgentInfo) bool {
		return a.AgentStatus == herdrtest.StatusBlocked
	})
	fmt.Println(info.Agent, info.AgentStatus, err)
	// Output:
	// demo blocked <nil>
}
