package calls

import (
	"context"
	"fmt"
	"sync"

	"github.com/panestate/panestate/adapter"
)

// Gate admits an adapter's calls one at a time and ends them at Close.
// Create one with [NewGate]; the zero value is not usable. All its methods
// are safe for concurrent use.
type Gate struct {
	turn    chan struct{} // holds a token while a call or Close is inside
	closing context.Context
	stop    context.CancelFunc

	mu     sync.Mutex
	closed bool
}

// NewGate returns an open gate.
func NewGate() *Gate {
	g := &Gate{turn: make(chan struct{}, 1)}
	g.closing, g.stop = context.WithCancel(context.Background())
	return g
}

// Enter waits for the call in flight, if any, to leave, and admits the
// caller, who must call [Gate.Leave] when done. It returns ctx's error when
// ctx ends first, an error wrapping [adapter.ErrWithdrawn] when the report
// ctx carries is withdrawn ([adapter.Withdrawn]) before the caller is
// admitted (nothing of it can have left), and [adapter.ErrClosed] after
// Close (also when Close ran while it waited), having admitted nothing.
func (g *Gate) Enter(ctx context.Context) error {
	if g.Closed() {
		return adapter.ErrClosed
	}
	withdrawn := adapter.Withdrawn(ctx)
	select {
	case <-withdrawn:
		return errWithdrawn
	default:
	}
	select {
	case g.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-withdrawn:
		return errWithdrawn
	}
	if g.Closed() {
		<-g.turn
		return adapter.ErrClosed
	}
	return nil
}

// errWithdrawn is Enter's error for a withdrawn report.
var errWithdrawn = fmt.Errorf("calls: waiting for the call in flight: %w", adapter.ErrWithdrawn)

// Leave lets the next call in. Call it once after each Enter that returned
// nil.
func (g *Gate) Leave() { <-g.turn }

// Closed reports whether Close was called.
func (g *Gate) Closed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// Closing returns a context that is cancelled when Close starts. It carries
// no values and no deadline.
func (g *Gate) Closing() context.Context { return g.closing }

// Close refuses every later call, cancels [Gate.Closing] so that the call
// in flight ends, and waits for that call to leave. It returns nil, or,
// when ctx ends before the call leaves, an error wrapping ctx's error (the
// gate is closed all the same). Close is idempotent: a second Close returns
// nil at once.
func (g *Gate) Close(ctx context.Context) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	g.mu.Unlock()
	g.stop()
	select {
	case g.turn <- struct{}{}:
		<-g.turn
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the in-flight call: %w", ctx.Err())
	}
}
