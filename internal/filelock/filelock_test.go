package filelock

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
)

func TestLockSerialises(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l")
	var mu sync.Mutex
	inside := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				unlock, err := Lock(path)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				if inside != 1 {
					t.Errorf("%d holders at once", inside)
				}
				inside--
				mu.Unlock()
				if err := unlock(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

func TestLockBadPath(t *testing.T) {
	if _, err := Lock(filepath.Join(t.TempDir(), "missing", "l")); err == nil {
		t.Fatal("Lock in a missing directory succeeded")
	}
}

func TestLockContextGivesUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to the open file, so a second open in this process
	// contends as another process would.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := LockContext(ctx, path); !errors.Is(err, context.Canceled) {
		t.Fatalf("LockContext on a held lock with a done ctx = %v, want context.Canceled", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	unlock, err = LockContext(t.Context(), path)
	if err != nil {
		t.Fatalf("LockContext on a free lock: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
}
