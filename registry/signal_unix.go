//go:build unix

package registry

import (
	"os"
	"syscall"
)

var exitSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM}

// raise sends sig to this process again. With its default action restored,
// the process ends as it would have without panestate.
func raise(sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(os.Getpid(), s)
	}
}
