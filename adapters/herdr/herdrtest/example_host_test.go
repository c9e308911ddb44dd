package herdrtest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
)

// TestHostInAnEmulatedPane is the recipe for testing a host against an
// emulated Herdr (docs/embedding.md, "Testing your integration"), compiled
// and run: the host's registry in the pane of an emulated Herdr, with a
// private home, waiting for what the pane shows instead of polling. It
// imports what a host test imports: registry, session and herdrtest (and
// settings, for a host that configures files or trust). The package's
// TestMain calls herdrtest.Main and clears every HERDR_* variable first.
func TestHostInAnEmulatedPane(t *testing.T) {
	// A developer's own settings must not leak in: even with Herdr
	// disabled in the real home, the test's private home decides.
	realHome := t.TempDir()
	writeFile(t, filepath.Join(realHome, ".mychat", "agent", "settings.json"), `{"herdr":{"enabled":false}}`)
	t.Setenv("HOME", realHome)

	h := herdrtest.StartT(t, herdrtest.Options{})
	reg, err := registry.New(registry.Options{
		App:            "mychat",
		Host:           session.Host{Interactive: true, Root: true},
		Env:            h.PaneEnv(t.TempDir()), // HERDR_* of the pane, HOME and XDG dirs of the test's
		StaticSettings: true,
		Drivers:        map[string]adapter.Driver{"herdr": herdr.Driver{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewStore()
	if err := reg.Attach(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	// Detach releases the pane; waiting for it makes the test prove it.
	waitFor := func(what string, cond func(herdrtest.AgentInfo) bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound for a broken host, not a speed check
		defer cancel()
		if info, err := h.Wait(ctx, h.Pane, cond); err != nil {
			t.Fatalf("waiting for %s: %v (the pane shows %+v)", what, err, info)
		}
	}
	shows := func(s herdrtest.Status) func(herdrtest.AgentInfo) bool {
		return func(a herdrtest.AgentInfo) bool { return a.Agent == "mychat" && a.AgentStatus == s }
	}

	store.AgentStart()
	waitFor("working", shows(herdrtest.StatusWorking))
	store.PromptStart("approve-1", session.PromptApproval)
	waitFor("blocked", shows(herdrtest.StatusBlocked))
	store.PromptEnd("approve-1")
	store.AgentSettled()
	// Idle after working, on a pane the user is not looking at, shows done.
	waitFor("done", shows(herdrtest.StatusDone))

	if err := reg.Detach(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitFor("the release", func(a herdrtest.AgentInfo) bool { return !a.Found })

	calls, err := h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if c.Command == "ping" {
			continue // the adapter's own protocol check on the socket
		}
		if src, _ := c.Flag("source"); src != "custom:mychat" || c.Code != "" {
			t.Errorf("call %s from source %q answered %q", c.Command, src, c.Code)
		}
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
