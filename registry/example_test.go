package registry_test

import (
	"context"
	"fmt"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/adapters/herdr"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// A chat service attaches reporting to its session store once; whatever
// workspace adapters apply are fed from then on. Here a recording adapter
// stands in for a workspace.
func Example() {
	rec := adaptertest.NewRecorder()

	reg, err := registry.New(registry.Options{
		App:  "mychat",
		Host: session.Host{Interactive: true, Root: true},
		// Only the recorder, and no settings files: a real host leaves
		// these out.
		Drivers:        map[string]adapter.Driver{"recorder": adaptertest.NewDriver(rec)},
		Settings:       settings.Options{GlobalPath: "/nonexistent/settings.json"},
		StaticSettings: true,
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	store := session.NewStore()
	if err := reg.Attach(ctx, store); err != nil {
		panic(err)
	}
	defer reg.Detach(ctx)

	// Wait for each delivery so that the output is the same on every run
	// (without the waits, changes that come faster than the recorder takes
	// them are merged: only the newest state counts); a chat service never
	// waits.
	deliveries := func(n int) {
		if err := rec.Wait(ctx, func(r []adapter.Report) bool { return len(r) >= n }); err != nil {
			panic(err)
		}
	}
	deliveries(1)
	store.AgentStart()
	deliveries(2)
	store.PromptStart("tool-1", session.PromptApproval)
	deliveries(3)
	store.PromptEnd("tool-1")
	deliveries(4)
	store.AgentSettled()
	deliveries(5)
	for _, r := range rec.Reports() {
		fmt.Println(r)
	}
	// Output:
	// idle (quiescent)
	// working (executing)
	// blocked (awaiting_input) "Waiting for approval"
	// working (executing)
	// idle (quiescent)
}

// A host with an adapter of its own adds it to the built-in drivers; the
// settings files then turn each one on or off.
func ExampleBuiltin() {
	drivers := registry.Builtin()
	drivers["title"] = adaptertest.NewDriver(adaptertest.NewRecorder()) // your adapter's driver
	reg, err := registry.New(registry.Options{
		App:      "mychat",
		Host:     session.Host{Interactive: true, Root: true},
		Env:      []string{}, // in no workspace
		Drivers:  drivers,
		Settings: settings.Options{GlobalPath: "/nonexistent/settings.json"},
	})
	if err != nil {
		panic(err)
	}
	for _, a := range reg.Explain().Adapters {
		fmt.Println(a.Name, a.Lifecycle)
	}
	// Output:
	// herdr inactive
	// progstatus inactive
	// terminal inactive
	// title not_attached
	// tmux inactive
	// wezterm inactive
}

// Explain answers "why does my pane show nothing?" without attaching.
func ExampleRegistry_Explain() {
	reg, err := registry.New(registry.Options{
		App:      "mychat",
		Host:     session.Host{Root: true},
		Env:      []string{}, // not in a Herdr pane
		Drivers:  map[string]adapter.Driver{"herdr": herdr.Driver{}},
		Settings: settings.Options{GlobalPath: "/nonexistent/settings.json"},
	})
	if err != nil {
		panic(err)
	}
	a := reg.Explain().Adapters[0]
	fmt.Printf("%s: %s, enabled by %s\n%s\n", a.Name, a.Lifecycle, a.EnabledBy, a.Why)
	// Output:
	// herdr: inactive, enabled by default
	// herdr: adapter inactive: HERDR_ENV is not set (not inside a Herdr pane)
}

// The first choice for a host's end: its own signal context. By the time
// Detach runs that context is done, and the release is still attempted,
// with a short budget of its own.
func ExampleRegistry_Detach() {
	rec := adaptertest.NewRecorder()
	reg, err := registry.New(registry.Options{
		App:            "mychat",
		Host:           session.Host{Interactive: true, Root: true},
		Drivers:        map[string]adapter.Driver{"recorder": adaptertest.NewDriver(rec)},
		Settings:       settings.Options{GlobalPath: "/nonexistent/settings.json"},
		StaticSettings: true,
	})
	if err != nil {
		panic(err)
	}
	// In a host: ctx, stop := signal.NotifyContext(context.Background(),
	// os.Interrupt, syscall.SIGTERM). Here the signal has already come.
	ctx, stop := context.WithCancel(context.Background())
	if err := reg.Attach(ctx, session.NewStore()); err != nil {
		panic(err)
	}
	if err := rec.Wait(ctx, func(r []adapter.Report) bool { return len(r) == 1 }); err != nil {
		panic(err)
	}
	stop() // SIGTERM

	err = reg.Detach(ctx) // ctx is done: one release attempt all the same
	fmt.Println("detach error:", err)
	fmt.Println("released:", rec.Released(), "closed:", rec.Closed())
	// Output:
	// detach error: <nil>
	// released: 1 closed: true
}
