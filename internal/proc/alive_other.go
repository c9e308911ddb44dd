//go:build !unix && !windows

package proc

// Alive cannot tell here: any positive pid is assumed to run.
func Alive(pid int) bool { return pid > 0 }
