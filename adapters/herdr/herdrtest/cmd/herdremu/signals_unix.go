//go:build !windows

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

var forwarded = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// exitStatus is the command's exit status, 128+n for a command killed by
// signal n, and how it ended, in words.
func exitStatus(cmd *exec.Cmd, err error) (code int, how string) {
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 1, "could not be waited for: " + err.Error()
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
		return code, fmt.Sprintf("was killed by signal %d (%s), exit status %d", int(ws.Signal()), ws.Signal(), code)
	}
	code = cmd.ProcessState.ExitCode()
	return code, fmt.Sprintf("exited %d", code)
}
