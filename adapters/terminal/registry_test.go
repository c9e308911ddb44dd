package terminal_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/terminal"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// signalTape is a tape that also says when a write arrives.
type signalTape struct {
	tape
	mu    sync.Mutex
	wrote chan struct{} // closed and replaced on every write
}

func newSignalTape() *signalTape { return &signalTape{wrote: make(chan struct{})} }

func (s *signalTape) Write(p []byte) (int, error) {
	n, err := s.tape.Write(p)
	s.mu.Lock()
	close(s.wrote)
	s.wrote = make(chan struct{})
	s.mu.Unlock()
	return n, err
}

// waitFor blocks until the writes so far hold want, in a Write of its own.
func (s *signalTape) waitFor(t *testing.T, want string) {
	t.Helper()
	timer := time.NewTimer(e2eWait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		ch := s.wrote
		s.mu.Unlock()
		s.tape.mu.Lock()
		found := false
		for _, w := range s.tape.writes {
			found = found || bytes.Equal(w, []byte(want))
		}
		s.tape.mu.Unlock()
		if found {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("%q was not written within %v", want, e2eWait)
		}
	}
}

// e2eWait bounds a wait for the registry's delivery goroutine; only a hang
// reaches it.
const e2eWait = 30 * time.Second

// TestThroughRegistry runs the adapter as the registry does, with the host's
// terminal handed over in registry.Options.Terminal: the state at attach,
// the changes, and the clear at Detach.
func TestThroughRegistry(t *testing.T) {
	out := newSignalTape()
	home := t.TempDir()
	reg, err := registry.New(registry.Options{
		App:            "mychat",
		Host:           tui,
		Env:            []string{"HOME=" + home, "WT_SESSION=5b4e2f6a-0000-4000-8000-000000000000"},
		Settings:       settings.Options{Home: home},
		StaticSettings: true,
		Drivers:        map[string]adapter.Driver{"terminal": terminal.Driver{}},
		Terminal:       out,
	})
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewStore()
	if err := reg.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "\x1b]9;4;0\x1b\\") // attached while idle
	store.AgentStart()
	out.waitFor(t, "\x1b]9;4;3\x1b\\")
	out.take()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), e2eWait)
	defer cancel()
	if err := reg.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range out.take() {
		got = append(got, string(w))
	}
	// Detach stops reporting while the agent still works: the last
	// write is the clear, whatever refresh came before it.
	if len(got) == 0 {
		t.Fatal("Detach wrote nothing; want the clear")
	}
	if diff := cmp.Diff(got[len(got)-1], "\x1b]9;4;0\x1b\\"); diff != "" {
		t.Errorf("last write at Detach, of %q (-got +want):\n%s", got, diff)
	}
}

// TestSettingsForceOnThroughRegistry proves that "terminal.enabled": true in
// a settings file turns the adapter on in a terminal it does not recognise:
// the registry passes the literal true as Params.Forced. Without it the same
// host starts nothing.
func TestSettingsForceOnThroughRegistry(t *testing.T) {
	tests := []struct {
		name     string
		settings string // the global settings file; "" for none
		want     registry.Lifecycle
	}{
		{"default: unknown terminal stays off", "", registry.LifecycleInactive},
		{"enabled true forces it on", `{"terminal": {"enabled": true}}`, registry.LifecycleActive},
		{"enabled false keeps it off", `{"terminal": {"enabled": false}}`, registry.LifecycleDisabled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.settings != "" {
				dir := filepath.Join(home, ".mychat", "agent")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(tt.settings), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := newSignalTape()
			reg, err := registry.New(registry.Options{
				App:            "mychat",
				Host:           tui,
				Env:            []string{"HOME=" + home, "TERM_PROGRAM=Apple_Terminal"},
				Settings:       settings.Options{Home: home},
				StaticSettings: true,
				Drivers:        map[string]adapter.Driver{"terminal": terminal.Driver{}},
				Terminal:       out,
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := reg.Attach(t.Context(), session.NewStore()); err != nil {
				t.Fatal(err)
			}
			defer func() {
				ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), e2eWait)
				defer cancel()
				if err := reg.Detach(ctx); err != nil {
					t.Error(err)
				}
			}()
			if tt.want == registry.LifecycleActive {
				out.waitFor(t, "\x1b]9;4;0\x1b\\") // attached while idle
			}
			var got registry.Lifecycle
			for _, a := range reg.Explain().Adapters {
				if a.Name == "terminal" {
					got = a.Lifecycle
				}
			}
			if got != tt.want {
				t.Errorf("terminal adapter is %v, want %v", got, tt.want)
			}
		})
	}
}
