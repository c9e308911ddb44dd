package cmdrun_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/cmdrun"
)

// TestRunWithdrawnBeforeStartStartsNothing: a report withdrawn before its
// child started is dropped at once: no process runs, and the error wraps
// ErrWithdrawn, not an *Error (no diagnostic is due).
func TestRunWithdrawnBeforeStartStartsNothing(t *testing.T) {
	ctx, withdraw := adapter.WithWithdraw(t.Context())
	withdraw()
	file := filepath.Join(t.TempDir(), "ran")
	_, err := helper(t).Run(ctx, helperArg, "touch", file)
	var ce *cmdrun.Error
	if !errors.Is(err, adapter.ErrWithdrawn) || errors.As(err, &ce) {
		t.Fatalf("Run = %v, want ErrWithdrawn and no *cmdrun.Error", err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the withdrawn call ran its program (stat: %v)", err)
	}
}

// TestRunWithdrawnAfterStartWaits: once the child has started, withdrawing
// does not kill it: Run waits for it to finish on its own and reports its
// success, since what it told the workspace cannot be taken back.
func TestRunWithdrawnAfterStartWaits(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "go")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	ctx, withdraw := adapter.WithWithdraw(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := helper(t).Run(ctx, helperArg, "await", fifo)
		done <- err
	}()
	// Opening the pipe's write end waits for the child to open its read
	// end: the child has started.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	withdraw()
	select {
	case err := <-done:
		t.Fatalf("Run returned %v on withdrawal, with its child still running", err)
	default:
	}
	if err := w.Close(); err != nil { // the child reads EOF and exits 0
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want the started child waited for and its success", err)
	}
}
