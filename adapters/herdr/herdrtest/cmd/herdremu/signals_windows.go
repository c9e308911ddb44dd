package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

var forwarded = []os.Signal{os.Interrupt}

// exitStatus is the command's exit status, and how it ended, in words.
func exitStatus(cmd *exec.Cmd, err error) (code int, how string) {
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 1, "could not be waited for: " + err.Error()
	}
	code = cmd.ProcessState.ExitCode()
	return code, fmt.Sprintf("exited %d", code)
}
