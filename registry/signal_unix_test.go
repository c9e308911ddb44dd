//go:build unix

package registry

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/panestate/panestate/session"
)

// DetachOnSignal releases the adapters on SIGTERM and then raises the signal
// again. The test listens for SIGTERM itself, so the raised signal reaches its
// channel instead of ending the test binary, exactly as a host with its own
// handler would see it.
func TestDetachOnSignal(t *testing.T) {
	own := make(chan os.Signal, 2)
	signal.Notify(own, syscall.SIGTERM)
	defer signal.Stop(own)

	log := &eventLog{}
	d := &fakeDriver{def: true, tag: "s", events: log}
	r := mustNew(t, testOptions(t, register(d)))
	if err := r.Attach(t.Context(), session.NewStore()); err != nil {
		t.Fatal(err)
	}
	d.adapters()[0].next(t)
	stop := r.DetachOnSignal()
	defer stop()

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	got := 0
	deadline := time.After(10 * time.Second)
	for got < 2 {
		select {
		case <-own:
			got++
		case <-deadline:
			t.Fatalf("the host saw %d SIGTERMs, want 2 (the original and the one raised again after Detach)", got)
		}
	}
	waitFor(t, "release and close", func() bool { return len(log.all()) == 3 })
	if ev := log.all(); ev[1] != "release s0" || ev[2] != "close s0" {
		t.Errorf("lifecycle %v, want open, release, close", ev)
	}
	if r.Explain().Attached {
		t.Error("still attached after the signal")
	}
	stop() // idempotent after the signal was handled
}

func TestDetachOnSignalStopWithoutSignal(t *testing.T) {
	r := mustNew(t, testOptions(t))
	stop := r.DetachOnSignal()
	stop()
	stop()
}
