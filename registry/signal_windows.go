//go:build windows

package registry

import (
	"os"
	"syscall"
)

// exitSignals are Ctrl-C and Ctrl-Break (os.Interrupt) and closing the
// console, logging off or shutting down (syscall.SIGTERM), as the os/signal
// package delivers them on Windows.
var exitSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// statusControlCExit is the exit status of a console process that Ctrl-C
// ends (STATUS_CONTROL_C_EXIT).
const statusControlCExit = 0xC000013A

// raise ends the process as the console event would have: Windows cannot
// raise an event again, so the process exits with the status the event's
// default handler gives it.
func raise(os.Signal) { os.Exit(statusControlCExit) }
