//go:build unix

package settingsengine

import (
	"os"
	"syscall"
)

// openNoBlock opens path read-only with O_NONBLOCK, so that opening a FIFO
// returns at once instead of waiting for a writer. The flag does not change
// how a regular file is read.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
