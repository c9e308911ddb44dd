//go:build windows

package proc

import "os"

// Alive reports whether pid runs: whether a process of that id can
// be opened.
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
