// Package filelock takes an exclusive advisory lock on a file, shared across
// processes: flock on Unix, LockFileEx on Windows. The lock is held by the
// open file and released by Unlock or when the process exits.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
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
	return unlocker(f, path), nil
}

// errWouldBlock is what tryLockFile returns when another holder has the lock.
var errWouldBlock = errors.New("filelock: held elsewhere")

// LockContext is Lock that gives up when ctx ends, returning ctx's error:
// it tries the lock without blocking and, while another process holds it,
// tries again at growing intervals of at most 10 ms.
func LockContext(ctx context.Context, path string) (func() error, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("filelock: %w", err)
	}
	wait := 100 * time.Microsecond
	for {
		err := tryLockFile(f)
		if err == nil {
			break
		}
		if !errors.Is(err, errWouldBlock) {
			f.Close()
			return nil, fmt.Errorf("filelock: lock %s: %w", path, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 10*time.Millisecond)
	}
	return unlocker(f, path), nil
}

// unlocker returns the Unlock of a held lock on f: it releases the lock and
// closes the file.
func unlocker(f *os.File, path string) func() error {
	return func() error {
		uerr := unlockFile(f)
		cerr := f.Close()
		if uerr != nil {
			return fmt.Errorf("filelock: unlock %s: %w", path, uerr)
		}
		return cerr
	}
}

// TryLockFile takes the exclusive lock on the already open f without
// blocking. It returns false, and no error, while another open file (of
// this process or another) holds the lock. UnlockFile releases it; closing
// f releases it too.
func TryLockFile(f *os.File) (bool, error) {
	switch err := tryLockFile(f); {
	case err == nil:
		return true, nil
	case errors.Is(err, errWouldBlock):
		return false, nil
	default:
		return false, fmt.Errorf("filelock: lock %s: %w", f.Name(), err)
	}
}

// UnlockFile releases a lock taken with TryLockFile; f stays open.
func UnlockFile(f *os.File) error {
	if err := unlockFile(f); err != nil {
		return fmt.Errorf("filelock: unlock %s: %w", f.Name(), err)
	}
	return nil
}
