//go:build windows

package herdr

import "os"

// processAlive reports whether pid runs: whether a process of that id can
// be opened.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
