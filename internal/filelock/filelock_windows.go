//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// The lock is on one byte far past any content (lockOffset), so that a
// locked file's content can still be read and written through other
// handles: a pane file's record is read without its lock.
const lockOffset = 0x7fffffff

func lockFile(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockOffset}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

func unlockFile(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockOffset}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

func tryLockFile(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockOffset}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errWouldBlock
	}
	return err
}
