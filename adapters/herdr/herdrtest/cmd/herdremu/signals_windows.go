package main

import (
	"errors"
	"os"
	"os/exec"
)

var forwarded = []os.Signal{os.Interrupt}

// exitCode is the command's exit status.
func exitCode(cmd *exec.Cmd, err error) int {
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 1
	}
	return cmd.ProcessState.ExitCode()
}
