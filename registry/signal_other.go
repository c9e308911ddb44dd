//go:build !unix

package registry

import "os"

// exitSignals is empty: a signal cannot be raised again here, so
// DetachOnSignal listens for none (the host ends itself; see the package
// documentation's signal.NotifyContext pattern).
var exitSignals []os.Signal

func raise(os.Signal) {}
