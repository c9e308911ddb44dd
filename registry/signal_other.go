//go:build !unix

package registry

import "os"

var exitSignals = []os.Signal{os.Interrupt}

// raise cannot send a signal again on this platform; it ends the process
// with the status an interrupted program conventionally has.
func raise(os.Signal) { os.Exit(2) }
