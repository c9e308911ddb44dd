//go:build unix && !linux && !freebsd

package cmdrun

import "syscall"

// lockThread is false: there is no parent-death signal to tie to a thread.
const lockThread = false

// setParentDeathSignal does nothing: macOS, OpenBSD and NetBSD have no
// parent-death signal, so a child outlives a host killed outright.
func setParentDeathSignal(*syscall.SysProcAttr) {}
