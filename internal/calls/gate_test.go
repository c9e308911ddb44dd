package calls_test

import (
	"context"
	"errors"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/calls"
)

func TestGateAdmitsOneCallAtATime(t *testing.T) {
	g := calls.NewGate()
	if err := g.Enter(t.Context()); err != nil {
		t.Fatalf("first Enter = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := g.Enter(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Enter while a call is inside, ctx cancelled = %v, want context.Canceled", err)
	}
	g.Leave()
	if err := g.Enter(t.Context()); err != nil {
		t.Fatalf("Enter after Leave = %v, want nil", err)
	}
	g.Leave()
}

func TestGateWaiterGetsTheTurnOnLeave(t *testing.T) {
	g := calls.NewGate()
	if err := g.Enter(t.Context()); err != nil {
		t.Fatal(err)
	}
	entered := make(chan error)
	go func() { entered <- g.Enter(t.Context()) }()
	select {
	case err := <-entered:
		t.Fatalf("second Enter returned %v while the first call was inside", err)
	default:
	}
	g.Leave()
	if err := <-entered; err != nil {
		t.Fatalf("waiting Enter = %v, want nil", err)
	}
	g.Leave()
}

func TestGateClose(t *testing.T) {
	t.Run("refuses later calls", func(t *testing.T) {
		g := calls.NewGate()
		if err := g.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if !g.Closed() {
			t.Error("Closed() = false after Close")
		}
		if err := g.Enter(t.Context()); !errors.Is(err, adapter.ErrClosed) {
			t.Errorf("Enter after Close = %v, want adapter.ErrClosed", err)
		}
		if err := g.Close(t.Context()); err != nil {
			t.Errorf("second Close = %v, want nil", err)
		}
	})
	t.Run("cancels Closing and waits for the call in flight", func(t *testing.T) {
		g := calls.NewGate()
		if err := g.Enter(t.Context()); err != nil {
			t.Fatal(err)
		}
		closed := make(chan error)
		go func() { closed <- g.Close(t.Context()) }()
		<-g.Closing().Done() // the call in flight sees Close and ends
		select {
		case err := <-closed:
			t.Fatalf("Close returned %v before the call left", err)
		default:
		}
		g.Leave()
		if err := <-closed; err != nil {
			t.Fatalf("Close = %v, want nil", err)
		}
	})
	t.Run("bounded by ctx", func(t *testing.T) {
		g := calls.NewGate()
		if err := g.Enter(t.Context()); err != nil {
			t.Fatal(err)
		}
		defer g.Leave()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err := g.Close(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Close with a call stuck inside = %v, want context.Canceled", err)
		}
		if !g.Closed() {
			t.Error("Closed() = false after a Close that gave up waiting")
		}
	})
	t.Run("a waiting Enter is refused", func(t *testing.T) {
		g := calls.NewGate()
		if err := g.Enter(t.Context()); err != nil {
			t.Fatal(err)
		}
		entered := make(chan error)
		go func() { entered <- g.Enter(t.Context()) }()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_ = g.Close(ctx) // gives up at once; the gate is closed
		g.Leave()
		if err := <-entered; !errors.Is(err, adapter.ErrClosed) {
			t.Fatalf("Enter waiting across Close = %v, want adapter.ErrClosed", err)
		}
	})
}

// TestGateWithdrawnWaiterGivesUp: a report withdrawn while it waits for the
// call in flight gives up at once with ErrWithdrawn (it has sent nothing),
// and one withdrawn before it came is not admitted even to a free gate.
func TestGateWithdrawnWaiterGivesUp(t *testing.T) {
	g := calls.NewGate()
	if err := g.Enter(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, withdraw := adapter.WithWithdraw(t.Context())
	entered := make(chan error)
	go func() { entered <- g.Enter(ctx) }()
	withdraw()
	if err := <-entered; !errors.Is(err, adapter.ErrWithdrawn) {
		t.Fatalf("withdrawn Enter = %v, want adapter.ErrWithdrawn", err)
	}
	g.Leave()
	if err := g.Enter(ctx); !errors.Is(err, adapter.ErrWithdrawn) {
		t.Fatalf("Enter of a withdrawn report at a free gate = %v, want adapter.ErrWithdrawn", err)
	}
	if err := g.Enter(t.Context()); err != nil {
		t.Fatalf("Enter after the withdrawn waiter left = %v, want nil (the gate is free)", err)
	}
	g.Leave()
}

// TestIfStopped: f runs only when the report was withdrawn by the time
// the deferred call runs, and the deferred call allocates nothing.
func TestIfStopped(t *testing.T) {
	for _, tc := range []struct {
		name           string
		carries, raise bool
		want           int
	}{
		{"withdrawn", true, true, 1},
		{"not_withdrawn", true, false, 0},
		{"no_signal", false, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, withdraw := t.Context(), func() {}
			if tc.carries {
				ctx, withdraw = adapter.WithWithdraw(ctx)
			}
			n := 0
			report := func() {
				defer calls.IfStopped(adapter.Withdrawn(ctx), func() { n++ })
				if tc.raise {
					withdraw()
				}
			}
			report()
			if n != tc.want {
				t.Errorf("f called %d times, want %d", n, tc.want)
			}
		})
	}
	ctx, _ := adapter.WithWithdraw(t.Context())
	stopping := adapter.Withdrawn(ctx)
	var f forgetter
	if allocs := testing.AllocsPerRun(100, func() {
		defer calls.IfStopped(stopping, f.forget)
	}); allocs != 0 {
		t.Errorf("deferred IfStopped allocates %v times, want 0", allocs)
	}
}

type forgetter struct{ n int }

func (f *forgetter) forget() { f.n++ }
