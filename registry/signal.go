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
const signalDetachTimeout = 10 * time.Second

// DetachOnSignal makes an interrupt or termination signal (SIGINT and SIGTERM
// on Unix, os.Interrupt on Windows) detach the registry, which releases the
// pane, and then lets the process end as the signal would have ended it: the
// signal is raised again with this listener removed, so a host that handles
// the signal itself still sees it, and a host that does not is ended by it.
// On Windows, where a signal cannot be raised again, the process exits with
// status 2 unless the host handles the signal too.
//
// The returned function stops listening; it is idempotent. The usual form is
// one line in main, after Attach:
//
//	defer reg.DetachOnSignal()()
//
// It is meant for hosts that do not handle these signals themselves. A host
// that does (a second Ctrl-C to force quit, or a signal it survives) should
// call Detach from its own handler instead: raising the signal again would
// deliver it to the host's handler a second time.
func (r *Registry) DetachOnSignal() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, exitSignals...)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case sig := <-ch:
			ctx, cancel := context.WithTimeout(context.Background(), signalDetachTimeout)
			if err := r.Detach(ctx); err != nil {
				r.log.Warn("detach on signal", "signal", sig.String(), "error", err)
			}
			cancel()
			signal.Stop(ch)
			raise(sig)
		case <-done:
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			signal.Stop(ch)
		})
	}
}
