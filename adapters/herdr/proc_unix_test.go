//go:build unix

package herdr

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// canKillGroups is whether a straggling grandchild is killed with the group.
const canKillGroups = true

// processAlive reports whether pid runs (a zombie that nobody reaped yet
// counts as dead).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no procfs: trust kill
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
