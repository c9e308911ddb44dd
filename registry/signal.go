package registry

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"time"
)

// signalDetachTimeout bounds the Detach run on a signal: the pane is released
// within it, or the process goes on ending without it.
const signalDetachTimeout = 5 * time.Second

// DetachOnSignal is for hosts that do not handle interrupt and termination
// signals themselves. It makes SIGINT or SIGTERM detach the registry, which
// releases the pane, and then end the process as the signal would have ended
// it, with the signal's exit status: on Unix the signal's default action is
// restored and the signal raised again; on Windows, where Ctrl-C and
// Ctrl-Break arrive as os.Interrupt and closing the console as SIGTERM, the
// process exits with STATUS_CONTROL_C_EXIT, as the console's own handler
// would end it. From the moment the signal arrives, the process only
// detaches and ends: the goroutine that calls the returned stop function
// waits for that end, so that a main that returns meanwhile cannot end the
// process with another status.
//
// A signal the process was started with ignored (SIGINT for a command run
// with & from a shell) stays ignored: DetachOnSignal does not listen for
// it. The signal.NotifyContext pattern of the package documentation stays
// the first choice everywhere.
//
// The returned function stops listening; it is idempotent. The usual form is
// one line in main, after Attach:
//
//	defer reg.DetachOnSignal()()
//
// A host with its own handler (a second Ctrl-C to force quit, a signal it
// survives) should call Detach from that handler instead: after the signal,
// DetachOnSignal resets the signal's handling, so the host's own handler
// sees the first delivery only.
func (r *Registry) DetachOnSignal() (stop func()) {
	r.mustBeMade()
	var sigs []os.Signal
	for _, s := range exitSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) == 0 {
		return func() {}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	var wg sync.WaitGroup
	onSignal := func(sig os.Signal) {
		ctx, cancel := context.WithTimeout(context.Background(), signalDetachTimeout)
		if err := r.Detach(ctx); err != nil {
			r.log.Warn("detach on signal", "signal", sig.String(), "error", err)
		}
		cancel()
		// Restore the default action and raise the signal again. The
		// process ends by it; this goroutine, and so stop, never returns,
		// so that no other exit can race the signal's.
		signal.Reset(sig)
		raise(sig)
		select {}
	}
	wg.Go(func() {
		select {
		case sig := <-ch:
			onSignal(sig)
		case <-done:
			// A signal that came as stop was called still ends the process
			// by the signal. After Stop none is delivered to ch any more:
			// one that comes later has its default action.
			signal.Stop(ch)
			select {
			case sig := <-ch:
				onSignal(sig)
			default:
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}
