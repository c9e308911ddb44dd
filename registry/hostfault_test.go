package registry

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// faultySource is a host's session.Source that panics where a test says.
type faultySource struct {
	*session.Store
	snapshotPanics  atomic.Bool
	subscribePanics bool
	cancelPanics    bool
	// cancelBlocks, when set, makes the cancel function block until it is
	// closed.
	cancelBlocks chan struct{}
}

func (s *faultySource) Snapshot() session.Snapshot {
	if s.snapshotPanics.Load() {
		panic("host Snapshot panics")
	}
	return s.Store.Snapshot()
}

func (s *faultySource) Subscribe(notify func()) func() {
	if s.subscribePanics {
		panic("host Subscribe panics")
	}
	cancel := s.Store.Subscribe(notify)
	if s.cancelPanics {
		return func() { cancel(); panic("host cancel panics") }
	}
	if s.cancelBlocks != nil {
		return func() { cancel(); <-s.cancelBlocks }
	}
	return cancel
}

// panickingWriter is a log destination that panics on every write.
type panickingWriter struct{ writes atomic.Int32 }

func (w *panickingWriter) Write([]byte) (int, error) {
	w.writes.Add(1)
	panic("host log writer panics")
}

// Faults in the host's own code (its session.Source, its Logger) stay in
// the library: the host lives, Attach or Detach says what happened, or
// Explain does, and the pane is released.
func TestHostFaultsAreContained(t *testing.T) {
	t.Run("Snapshot panics", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			d := &fakeDriver{def: true}
			r := mustNew(t, testOptions(t, register(d)))
			src := &faultySource{Store: session.NewStore()}
			if err := r.Attach(t.Context(), src); err != nil {
				t.Fatal(err)
			}
			a := d.adapters()[0]
			a.next(t)
			src.snapshotPanics.Store(true)
			src.AgentStart()
			synctest.Wait()
			st := r.Explain().Adapters[0]
			if st.Lifecycle != LifecyclePanicked || !strings.Contains(st.Why, "panicked in Snapshot") {
				t.Errorf("Explain: %v (%s), want panicked, saying Snapshot panicked", st.Lifecycle, st.Why)
			}
			if a.releases() != 1 || !a.closed.Load() {
				t.Errorf("released %d, closed %t; want the pane released and the adapter closed", a.releases(), a.closed.Load())
			}
		})
	})
	t.Run("Subscribe panics", func(t *testing.T) {
		d := &fakeDriver{def: true}
		r := mustNew(t, testOptions(t, register(d)))
		err := r.Attach(t.Context(), &faultySource{Store: session.NewStore(), subscribePanics: true})
		if err == nil || !strings.Contains(err.Error(), "panicked in Subscribe") {
			t.Errorf("Attach = %v, want an error saying Subscribe panicked", err)
		}
		if r.Explain().Attached || len(d.adapters()) != 0 {
			t.Errorf("attached %t with %d adapters opened, want nothing", r.Explain().Attached, len(d.adapters()))
		}
		// The registry is usable: a good source attaches.
		if err := r.Attach(t.Context(), session.NewStore()); err != nil {
			t.Errorf("Attach after the fault: %v", err)
		}
	})
	// The cancel function Subscribe returned panics, or hangs (without a
	// bound, Detach would wait for it for ever, and the bubble deadlock):
	// Detach says so, and the pane is released all the same.
	for _, tt := range []struct {
		name    string
		src     func() *faultySource
		wantErr string
	}{
		{"the cancel function panics", func() *faultySource {
			return &faultySource{Store: session.NewStore(), cancelPanics: true}
		}, "cancel function (returned by Subscribe) panicked"},
		{"the cancel function hangs", func() *faultySource {
			return &faultySource{Store: session.NewStore(), cancelBlocks: make(chan struct{})}
		}, "cancel function (returned by Subscribe) did not return"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := &fakeDriver{def: true}
				r := mustNew(t, testOptions(t, register(d)))
				src := tt.src()
				if src.cancelBlocks != nil {
					defer close(src.cancelBlocks) // the host's cancel returns at last
				}
				if err := r.Attach(t.Context(), src); err != nil {
					t.Fatal(err)
				}
				a := d.adapters()[0]
				a.next(t)
				err := r.Detach(context.Background())
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Detach = %v, want an error saying %q", err, tt.wantErr)
				}
				if a.releases() != 1 || !a.closed.Load() {
					t.Errorf("released %d, closed %t; want the pane released and the adapter closed", a.releases(), a.closed.Load())
				}
			})
		})
	}
	t.Run("the Logger's writer panics", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			d := &fakeDriver{def: true}
			opts := testOptions(t, register(d))
			w := &panickingWriter{}
			opts.Logger = hclog.New(&hclog.LoggerOptions{Output: w, Level: hclog.Trace})
			// The host's diagnostic callback panics too: its recover
			// handler logs, through the same logger.
			opts.OnDiagnostic = func(adapter.Diagnostic) { panic("host OnDiagnostic panics") }
			r := mustNew(t, opts)
			store := session.NewStore()
			if err := r.Attach(t.Context(), store); err != nil {
				t.Fatal(err)
			}
			a := d.adapters()[0]
			a.next(t)
			a.panicky.Store(true) // an adapter_panic diagnostic, logged by the worker
			store.AgentStart()
			synctest.Wait()
			if got := r.Explain().Adapters[0].Lifecycle; got != LifecyclePanicked {
				t.Errorf("lifecycle %v, want panicked", got)
			}
			if a.releases() != 1 || !a.closed.Load() {
				t.Errorf("released %d, closed %t; want the pane released and the adapter closed", a.releases(), a.closed.Load())
			}
			if w.writes.Load() == 0 {
				t.Error("nothing was logged: the fault was not exercised")
			}
		})
	})
}
