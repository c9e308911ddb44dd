//go:build !unix

package settingsengine

import "os"

// openNoBlock opens path read-only. Outside unix, named pipes do not live
// among regular files, so a plain open cannot block on one; readFile checks
// the type before and after the open all the same.
func openNoBlock(path string) (*os.File, error) {
	return os.Open(path)
}
