//go:build !unix

package cmdrun_test

import "os"

// processAlive reports whether pid can still be found.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
