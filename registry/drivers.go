package registry

import (
	"fmt"
	"slices"
	"sync"

	"github.com/panestate/panestate/adapter"
)

// The driver table is process-wide by design, as in database/sql: drivers
// register themselves once, from init functions, before any registry exists.
var (
	driversMu sync.RWMutex
	drivers   = make(map[string]adapter.Driver)
)

// namePattern is the form of an adapter's name, checked by validName.
const namePattern = "^[a-z][a-z0-9_-]*$"

// validName reports whether name matches namePattern. It is checked by
// hand: a compiled regexp costs every program that links the registry
// about 0.1 ms and hundreds of allocations at start, which a hook process
// run per agent event pays.
func validName(name string) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Register makes a driver available under name. The name is also the
// adapter's settings section ("<name>.enabled"), so it must match
// ^[a-z][a-z0-9_-]*$. Register panics if the name is malformed, if driver is
// nil, or if a driver is already registered under name. Call it from an init
// function; it is safe for concurrent use.
func Register(name string, driver adapter.Driver) {
	if !validName(name) {
		panic(fmt.Sprintf("registry: Register adapter name %q: must match %s", name, namePattern))
	}
	if driver == nil {
		panic("registry: Register driver is nil for adapter " + name)
	}
	driversMu.Lock()
	defer driversMu.Unlock()
	if _, dup := drivers[name]; dup {
		panic("registry: Register called twice for adapter " + name)
	}
	drivers[name] = driver
}

// Drivers returns the sorted names of the registered drivers.
func Drivers() []string {
	driversMu.RLock()
	defer driversMu.RUnlock()
	names := make([]string, 0, len(drivers))
	for n := range drivers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// lookup returns the driver registered under name.
func lookup(name string) (adapter.Driver, error) {
	driversMu.RLock()
	defer driversMu.RUnlock()
	d, ok := drivers[name]
	if !ok {
		return nil, fmt.Errorf("registry: unknown adapter %q (forgotten import?)", name)
	}
	return d, nil
}

// ScrubEnv returns env without the pane variables of any registered
// workspace (every HERDR_* variable, tmux's TMUX_PANE). Give the result to
// the tool subprocesses the agent starts, so that a nested agent can never
// claim or release the pane of the agent that started it. A nil env means
// the process environment.
//
// It asks the drivers of the process-wide table ([Register], which holds
// every built-in one). A driver given only through [Options.Drivers] under
// a name the table lacks is not asked: register its package as well, or
// scrub its variables yourself. It is safe for concurrent use.
func ScrubEnv(env []string) []string {
	e := adapter.Env(env)
	if env == nil {
		e = adapter.Environ()
	}
	for _, name := range Drivers() {
		d, _ := lookup(name)
		e = adapter.ScrubEnv(d, e)
	}
	return e
}
