package agentlab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// timeHookEnv makes the test binary the timer of a hook command: it runs
// its arguments with its stdin, stdout and stderr, and appends the
// nanoseconds from just before the start to just after the exit to the
// file the variable names.
const timeHookEnv = "AGENTLAB_TIME_HOOK"

// timeHook is the timer (see timeHookEnv). It exits 0 whatever the hook
// did, as the hooks measured do.
func timeHook(out string, argv []string) int {
	if len(argv) == 0 {
		return 0
	}
	// The payload is read first, for its event name; the hook gets it
	// through a pipe, as from the agent.
	payload, _ := io.ReadAll(os.Stdin)
	var p struct {
		Event string `json:"hook_event_name"`
	}
	_ = json.Unmarshal(payload, &p)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(payload), os.Stdout, os.Stderr
	start := time.Now()
	_ = cmd.Run()
	took := time.Since(start)
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		fmt.Fprintln(f, took.Nanoseconds(), p.Event)
		f.Close()
	}
	return 0
}
