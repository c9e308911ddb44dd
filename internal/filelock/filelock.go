// Package filelock takes an exclusive advisory lock on a file, shared across
// processes: flock on Unix, LockFileEx on Windows. The lock is held by the
// open file and released by Unlock or when the process exits.
package filelock

import (
	"fmt"
	"os"
)

// Lock opens (creating if needed, mode 0600) the file at path and blocks until
// this process holds an exclusive lock on it. Unlock releases the lock and
// closes the file.
func Lock(path string) (func() error, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("filelock: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("filelock: lock %s: %w", path, err)
	}
	return func() error {
		uerr := unlockFile(f)
		cerr := f.Close()
		if uerr != nil {
			return fmt.Errorf("filelock: unlock %s: %w", path, uerr)
		}
		return cerr
	}, nil
}
