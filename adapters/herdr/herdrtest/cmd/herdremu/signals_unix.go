//go:build !windows

package main

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

var forwarded = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// exitCode is the command's exit status, 128+n for a command killed by
// signal n.
func exitCode(cmd *exec.Cmd, err error) int {
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 1
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}
