//go:build linux || darwin

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// shells are the command names of the shells agents run hook commands
// through (sh -c "panestate hook ...").
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "busybox"}

// agentPID returns the agent's process: the hook's parent, or, when that is
// a shell the agent ran the hook command through, the first ancestor that
// is not a shell (at most three shells up).
func agentPID() int {
	pid := os.Getppid()
	for range 3 {
		ppid, comm, err := procInfo(pid)
		if err != nil || ppid <= 1 || !slices.Contains(shells, strings.TrimPrefix(filepath.Base(comm), "-")) {
			return pid
		}
		pid = ppid
	}
	return pid
}
