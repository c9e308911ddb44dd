//go:build !unix && !windows

package herdr

// processAlive cannot tell here; a claim's process is assumed to run.
func processAlive(pid int) bool { return pid > 0 }
