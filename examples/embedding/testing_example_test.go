package embedding_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// Section 7 of docs/embedding.md: a host's test gives its registry its own
// recorder through Options.Drivers, a per-registry table, so it runs again
// under go test -count=2.
func Example_testWithRecorder() {
	dir, err := os.MkdirTemp("", "mychat-test-") // t.TempDir() in a test
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // t.Context() in a test
	defer cancel()

	rec := adaptertest.NewRecorder()
	reg, err := registry.New(registry.Options{
		App:     "mychat",
		Host:    session.Host{Interactive: true, Root: true},
		Drivers: map[string]adapter.Driver{"recorder": adaptertest.NewDriver(rec)},
		Settings: settings.Options{
			GlobalPath: filepath.Join(dir, "settings.json"), // a test's own, never the developer's
		},
		StaticSettings: true,
	})
	if err != nil {
		panic(err) // t.Fatal(err) in a test
	}
	store := session.NewStore()
	if err := reg.Attach(ctx, store); err != nil {
		panic(err)
	}
	defer reg.Detach(ctx)

	store.AgentStart()
	err = rec.Wait(ctx, func(r []adapter.Report) bool {
		return len(r) > 0 && r[len(r)-1].State == adapter.StateWorking
	})
	reports := rec.Reports()
	fmt.Println(err, reports[len(reports)-1].State)
	// Output: <nil> working
}
