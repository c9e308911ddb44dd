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
	mu   sync.Mutex
	ch   chan struct{}
	done bool
	fns  map[*func()]struct{} // AfterWithdraw's, not yet run
}

// raise withdraws: Withdrawn's channel closes and every function
// registered with AfterWithdraw starts, each in its own goroutine.
func (w *withdrawal) raise() {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return
	}
	w.done = true
	close(w.ch)
	fns := w.fns
	w.fns = nil
	w.mu.Unlock()
	for f := range fns {
		go (*f)()
	}
}

// WithWithdraw returns a copy of ctx that carries a withdrawal signal, and
// the function that raises it. The registry passes such a context to every
// Report; an adapter's own tests use it to act the registry's part.
// Withdrawing is not cancelling: ctx stays live, and a request that may
// already have reached the workspace is still waited for.
func WithWithdraw(ctx context.Context) (context.Context, func()) {
	w := &withdrawal{ch: make(chan struct{})}
	return context.WithValue(ctx, withdrawKey{}, w), w.raise
}

// Withdrawn returns a channel that is closed when the report being delivered
// under ctx has been withdrawn: reporting is stopping (Detach, the adapter
// turned off), and a release follows once Report returns if the release
// budget allows (otherwise the adapter is left open until the next
// Detach). An adapter that sends its last report again by itself later
// (takes its pane back) must stop wanting the pane once a Report of its
// was withdrawn. It returns nil
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

// AfterWithdraw arranges for f to run in its own goroutine once the report
// being delivered under ctx is withdrawn, as [context.AfterFunc] does for a
// cancellation: at once if it already is. It costs no goroutine until
// then, where watching [Withdrawn]'s channel would cost one per report.
// Calling stop keeps f from running; it returns true when it did so, and
// false when f has already been started or stop was called before. When
// ctx carries no withdrawal signal, f never runs.
//
// AfterWithdraw and stop may be called concurrently with each other and
// with the withdrawal.
func AfterWithdraw(ctx context.Context, f func()) (stop func() bool) {
	w, ok := ctx.Value(withdrawKey{}).(*withdrawal)
	if !ok {
		var once sync.Once
		return func() (stopped bool) {
			once.Do(func() { stopped = true })
			return stopped
		}
	}
	key := &f
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	if w.fns == nil {
		w.fns = make(map[*func()]struct{})
	}
	w.fns[key] = struct{}{}
	w.mu.Unlock()
	return func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		_, ok := w.fns[key]
		delete(w.fns, key)
		return ok
	}
}
