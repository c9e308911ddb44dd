//go:build unix && !darwin

package proc

import (
	"os"
	"strconv"
	"strings"
)

// zombie reports whether process pid has exited and waits to be reaped,
// as /proc/<pid>/stat says; false where there is no procfs.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z'
	}
	return false
}
