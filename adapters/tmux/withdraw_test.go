package tmux

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/testenv"
)

// holdFixture is an adapter on a private tmux server whose tmux is the
// fake in hold mode: each report's client, once started, waits for the
// test (see holdThenRun) before it runs the real tmux.
type holdFixture struct {
	srv  *server
	pane string
	fifo string
	a    *Adapter
}

func newHoldFixture(t *testing.T) *holdFixture {
	t.Helper()
	srv := startServer(t, nil)
	pane := srv.panes(t)[0]
	fifo := filepath.Join(t.TempDir(), "hold")
	if err := mkfifo(fifo); err != nil {
		t.Fatalf("named pipe: %v", err)
	}
	env := adapter.Env{
		EnvTmux + "=" + srv.sock + "," + srv.pid + ",0",
		EnvPane + "=" + pane,
		"PATH=" + fakeDir(t),
		fakeModeEnv + "=hold",
		fakeHoldEnv + "=" + fifo,
		fakeRealEnv + "=" + srv.bin,
	}
	return &holdFixture{srv: srv, pane: pane, fifo: fifo, a: openT(t, params(env, "", nil))}
}

// started waits for a report's client to start and returns the pipe end
// whose closing lets it go on. It fails the test if the Report returns
// first (reported through done).
func (f *holdFixture) started(t *testing.T, done <-chan error) *os.File {
	t.Helper()
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(f.fifo, os.O_WRONLY, 0)
		if err != nil {
			w = nil
		}
		opened <- w
	}()
	select {
	case w := <-opened:
		if w == nil {
			t.Fatal("cannot open the hold pipe")
		}
		return w
	case err := <-done:
		// Unblock the opener: a reader that goes away at once.
		if r, oerr := os.OpenFile(f.fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); oerr == nil {
			if w := <-opened; w != nil {
				w.Close()
			}
			r.Close()
		}
		t.Fatalf("Report returned %v before its tmux client started", err)
	}
	return nil
}

// TestWithdrawnReportInFlightIsWaitedFor acts the registry's part at Detach
// (issue 21): the report's tmux client has started but not yet reached the
// server when the report is withdrawn. Report keeps waiting for the client
// (killing it would not stop a command already sent), so the release runs
// after the report's commands, and the pane ends with no option, every
// time.
func TestWithdrawnReportInFlightIsWaitedFor(t *testing.T) {
	f := newHoldFixture(t)
	for i := range testenv.Iterations(50) {
		r := working
		if i%2 == 1 {
			r = blocked
		}
		ctx, withdraw := adapter.WithWithdraw(t.Context())
		done := make(chan error, 1)
		go func() { done <- f.a.Report(ctx, r) }()
		w := f.started(t, done)
		withdraw()
		select {
		case err := <-done:
			w.Close()
			t.Fatalf("iteration %d: Report returned %v on withdrawal while its client ran", i, err)
		default:
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("iteration %d: withdrawn Report in flight = %v, want it waited for and delivered", i, err)
		}
		if diff := cmp.Diff(f.srv.options(t, f.pane), want(r.State.String(), r.Message.String())); diff != "" {
			t.Fatalf("iteration %d: after the report returned, options (-got +want):\n%s", i, diff)
		}
		if err := f.a.Release(t.Context()); err != nil {
			t.Fatalf("iteration %d: Release = %v", i, err)
		}
		if got := f.srv.options(t, f.pane); len(got) != 0 {
			t.Fatalf("iteration %d: after the release the pane still has %v", i, got)
		}
	}
}

// TestWithdrawnBeforeSendIsDropped: a report withdrawn before its tmux
// client started is not run and Report returns ErrWithdrawn at once:
// withdrawn before the call, or while it waits for a call in flight.
func TestWithdrawnBeforeSendIsDropped(t *testing.T) {
	t.Run("before the call", func(t *testing.T) {
		log := filepath.Join(t.TempDir(), "calls")
		env := adapter.Env{EnvTmux + "=/tmp/sock,1,0", EnvPane + "=%1", "PATH=" + fakeDir(t),
			fakeModeEnv + "=record", fakeLogEnv + "=" + log}
		d := &diags{}
		a := openT(t, params(env, "", d))
		ctx, withdraw := adapter.WithWithdraw(t.Context())
		withdraw()
		if err := a.Report(ctx, working); !errors.Is(err, adapter.ErrWithdrawn) {
			t.Fatalf("Report = %v, want ErrWithdrawn", err)
		}
		if _, err := os.Stat(log); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a withdrawn report ran tmux (log: %v)", err)
		}
		if got := d.all(); len(got) != 0 {
			t.Errorf("a withdrawn report emitted %v", got)
		}
		// The release is not a report: a withdrawn ctx does not stop it.
		if err := a.Release(ctx); err != nil {
			t.Fatalf("Release under the withdrawn ctx = %v", err)
		}
		if _, err := os.Stat(log); err != nil {
			t.Errorf("the release did not run tmux: %v", err)
		}
	})
	t.Run("waiting for a call in flight", func(t *testing.T) {
		f := newHoldFixture(t)
		first := make(chan error, 1)
		go func() { first <- f.a.Report(context.Background(), working) }()
		w := f.started(t, first)
		defer w.Close()
		ctx, withdraw := adapter.WithWithdraw(t.Context())
		second := make(chan error, 1)
		go func() { second <- f.a.Report(ctx, blocked) }()
		withdraw()
		if err := <-second; !errors.Is(err, adapter.ErrWithdrawn) {
			t.Fatalf("the waiting Report = %v, want ErrWithdrawn", err)
		}
		w.Close()
		if err := <-first; err != nil {
			t.Fatalf("the first Report = %v", err)
		}
		if diff := cmp.Diff(f.srv.options(t, f.pane), want("working", "")); diff != "" {
			t.Errorf("options (-got +want):\n%s", diff)
		}
	})
}

// TestDetachedAdapterDoesNotTakeThePaneBack: two adapters of one process on
// one pane. The older one's host detached: its report in flight was
// withdrawn, landed, and no release followed (the budget ran out; the
// adapter is left open until the next Detach). Once a newer adapter has
// released the pane, the older one must not take it back: its pane watch
// ends, and the pane keeps no option.
func TestDetachedAdapterDoesNotTakeThePaneBack(t *testing.T) {
	f := newHoldFixture(t)
	back := make(chan struct{}, 1)
	onTakeBack(t, f.a, func() { back <- struct{}{} })
	ctx, withdraw := adapter.WithWithdraw(t.Context())
	done := make(chan error, 1)
	go func() { done <- f.a.Report(ctx, working) }()
	w := f.started(t, done)
	withdraw()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("withdrawn Report in flight = %v, want it delivered", err)
	}
	testenv.WaitNoGoroutineIn(t, "owner.(*Owner).watch")

	newer := openT(t, params(f.srv.paneEnv(f.pane), "", nil))
	if err := newer.Report(t.Context(), blocked); err != nil {
		t.Fatal(err)
	}
	if err := newer.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := newer.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-back:
		t.Fatal("the detached adapter took the pane back")
	default:
	}
	if got := f.srv.options(t, f.pane); len(got) != 0 {
		t.Errorf("after the newer adapter released the pane it has %v, want no option", got)
	}
}
