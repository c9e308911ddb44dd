package adapter

import (
	"context"
	"errors"
	"sync"
)

// ErrWithdrawn is wrapped by the error Report returns when its report was
// withdrawn ([Withdrawn]) before any of it left the process.
var ErrWithdrawn = errors.New("adapter: report withdrawn before it was sent")

type withdrawKey struct{}

type withdrawal struct {
	once sync.Once
	ch   chan struct{}
}

// WithWithdraw returns a copy of ctx that carries a withdrawal signal, and
// the function that raises it. The registry passes such a context to every
// Report; an adapter's own tests use it to act the registry's part.
// Withdrawing is not cancelling: ctx stays live, and a request that may
// already have reached the workspace is still waited for.
func WithWithdraw(ctx context.Context) (context.Context, func()) {
	w := &withdrawal{ch: make(chan struct{})}
	return context.WithValue(ctx, withdrawKey{}, w), func() { w.once.Do(func() { close(w.ch) }) }
}

// Withdrawn returns a channel that is closed when the report being delivered
// under ctx has been withdrawn: reporting is stopping (Detach, the adapter
// turned off) and a release will follow once Report returns. It returns nil
// (a channel that never closes) when ctx carries no withdrawal signal.
//
// The rule that keeps a pane from being claimed after its release: a request
// that has certainly not left the process (no process started, nothing
// written to the connection) is not sent once Withdrawn is closed, and
// Report returns an error wrapping [ErrWithdrawn] at once; a request that may
// have left is waited for until it is answered or ctx ends, because the
// workspace may still apply it, and a release sent meanwhile could be
// overtaken by it.
func Withdrawn(ctx context.Context) <-chan struct{} {
	if w, ok := ctx.Value(withdrawKey{}).(*withdrawal); ok {
		return w.ch
	}
	return nil
}
