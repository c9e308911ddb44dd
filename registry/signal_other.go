//go:build !unix && !windows

package registry

import "os"

// exitSignals is empty on the systems that are neither Unix nor Windows
// (Plan 9, WebAssembly), where panestate has no workspace to release: a
// signal cannot be raised again there, so DetachOnSignal listens for none.
var exitSignals []os.Signal

func raise(os.Signal) {}
