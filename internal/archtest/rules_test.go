package archtest

// The rules below are the import graph of docs/architecture.md and the
// design, written out per package. Every package of the module must match
// a rule (a new package without one fails the test); a rule for a package
// that does not exist yet matches nothing and costs nothing.
//
// Patterns are module-relative: "adapter" is exactly that package,
// "adapters/..." is adapters and everything below it, "..." is every
// package of the module. Outside modules are named by module path (not
// package path): "golang.org/x/sys" covers x/sys/unix and x/sys/windows.
// Only what a package ships is checked (its non-test files, in each of the
// builds of archtest_test.go, which between them select every such file);
// tests may import what they need. A module allowance without a goos holds
// in every build; one with a goos only there.

// Outside modules, by module path.
const (
	modHclog    = "github.com/hashicorp/go-hclog"
	modKoanf    = "github.com/knadh/koanf/v2"
	modConfmap  = "github.com/knadh/koanf/providers/confmap"
	modFsnotify = "github.com/fsnotify/fsnotify"
	modXSys     = "golang.org/x/sys"
	modIsatty   = "github.com/mattn/go-isatty"
	modWinio    = "github.com/Microsoft/go-winio"
	modGoleak   = "go.uber.org/goleak"
)

// everywhere and only return module allowances for every platform, or for
// the listed ones.
func everywhere(paths ...string) []module {
	ms := make([]module, len(paths))
	for i, p := range paths {
		ms[i] = module{path: p}
	}
	return ms
}

func only(goos, path string) module { return module{path: path, goos: goos} }

// noIO is what the reducer may not import: it is a pure function, with no
// clock, logger, context, file, process or network.
var noIO = []string{
	"os", "os/...", "io/fs", "io/ioutil", "net", "net/...", "syscall", "time",
	"log", "log/...", "context", "runtime", "runtime/...", "unsafe", "plugin",
	"math/rand", "math/rand/...", "crypto/rand", "path/filepath", "sync", "sync/...",
}

var rules = []rule{
	// The leaf: plain data and an observable store.
	{pkg: "session", banned: []string{"os", "os/...", "net", "net/...", "syscall", "io/fs"},
		bannedWhy: "session is plain data: no file, process or network"},

	// The contract, and what adapter authors build on.
	{pkg: "adapter", imports: []string{"session"}, modules: everywhere(modHclog)},
	{pkg: "adapter/adaptertest", imports: []string{"adapter", "session", "internal/optional"}, modules: everywhere(modGoleak)},
	// The calls into the optional interfaces, with their fallbacks: the
	// registry's machinery, not the contract.
	{pkg: "internal/optional", imports: []string{"adapter", "session"}},
	// The host check and the duration setting every built-in adapter shares.
	{pkg: "internal/builtin", imports: []string{"adapter", "session"}},
	// JSON text made safe to print (Explain's JSON, the doctor's report).
	{pkg: "internal/safetext", imports: []string{"adapter"}},
	{pkg: "internal/cmdrun", imports: []string{"adapter", "internal/builtin"}, modules: everywhere(modXSys)},
	{pkg: "internal/calls", imports: []string{"adapter"}},
	// Pane ownership: the pane file's lock and whether its holder runs.
	{pkg: "internal/owner", imports: []string{"adapter", "internal/filelock", "internal/proc"}},

	{pkg: "reducer", imports: []string{"session", "adapter"}, banned: noIO,
		bannedWhy: "the reducer does no I/O"},

	// What a host sets about the settings files; the engine that reads
	// them is the registry's, under internal.
	{pkg: "settings"},
	{pkg: "internal/settingsengine", imports: []string{"settings"},
		modules: everywhere(modKoanf, modConfmap, modFsnotify, modHclog)},

	// The one package that ties everything together.
	{pkg: "registry", imports: []string{"session", "adapter", "reducer", "settings", "adapters/...", "internal/..."},
		modules: everywhere(modHclog)},

	// Adapters import adapter and session (plus their own internals, the
	// host check and duration setting, the shared subprocess runner and the
	// call gate).
	{pkg: "adapters/noop", imports: []string{"adapter", "session"}},
	{pkg: "adapters/terminal", imports: []string{"adapter", "session", "internal/builtin"}, modules: everywhere(modHclog)},
	// progstatus asks its own probe package only for the name of the
	// variable that hands the probe's result over, and runs one tmux
	// client (cmdrun) inside tmux to read allow-passthrough.
	{pkg: "adapters/progstatus", imports: []string{"adapter", "session", "internal/builtin", "internal/cmdrun", "adapters/progstatus/probe"}},
	// The probe imports nothing of the module, so that a host may call it
	// (raw mode through x/sys/unix).
	{pkg: "adapters/progstatus/probe", modules: everywhere(modXSys)},
	// WezTerm's user variables, written to the host's terminal.
	{pkg: "adapters/wezterm", imports: []string{"adapter", "internal/builtin"}},
	{pkg: "adapters/tmux", imports: []string{"adapter", "session", "internal/builtin", "internal/cmdrun", "internal/calls", "internal/owner"}, modules: everywhere(modHclog)},
	{pkg: "adapters/herdr", imports: []string{"adapter", "session", "internal/builtin", "internal/cmdrun", "internal/calls", "internal/owner", "adapters/herdr/internal/...", "internal/filelock", "internal/proc"},
		modules: append(everywhere(modHclog, modXSys), only("windows", modWinio))},
	// Herdr's socket wire, shared by the adapter and the emulator: named
	// pipes on Windows.
	{pkg: "adapters/herdr/internal/...", imports: []string{"adapters/herdr/internal/..."},
		modules: []module{only("windows", modWinio), only("windows", modXSys)}},
	// The emulated Herdr: a server and its CLI client, shared with hosts'
	// tests. It speaks the wire itself; it does not use the adapter. It
	// reads its peers' credentials (x/sys) and waits on its log (fsnotify).
	{pkg: "adapters/herdr/herdrtest", imports: []string{"adapters/herdr/internal/...", "internal/filelock", "session"},
		modules: append(everywhere(modXSys, modFsnotify), only("windows", modWinio))},
	{pkg: "adapters/herdr/herdrtest/cmd/...", imports: []string{"adapters/herdr/herdrtest", "adapters/herdr/internal/...", "session"}},

	// Shared helpers.
	{pkg: "internal/filelock", modules: []module{only("windows", modXSys)}},
	// Whether a zombie is dead: /proc on Linux, a sysctl on macOS.
	{pkg: "internal/proc", modules: []module{only("darwin", modXSys)}},
	{pkg: "internal/testenv"},
	// The real agents end to end: a test kit, in the emulated Herdr and a
	// private tmux.
	{pkg: "internal/agentlab", imports: []string{"adapters/herdr/herdrtest", "internal/testenv"}},
	{pkg: "internal/archtest"},

	// Hosts. Each names what it needs beyond registry, session and settings.
	{pkg: "internal/hostflags", imports: []string{"registry", "session", "settings", "adapter"},
		modules: everywhere(modHclog)},
	// chat hands its stdout to Options.Terminal when it is a terminal
	// (go-isatty), and runs the OSC 7501 probe when asked (adapters/progstatus/probe).
	{pkg: "examples/chat", imports: []string{"registry", "session", "internal/hostflags", "internal/events", "adapters/progstatus/probe"},
		modules: everywhere(modHclog, modIsatty)},
	// The doctor pings the Herdr server itself, as the reporter does (on
	// Windows over the named pipe: go-winio); examples/doctor and
	// panestate doctor run it. What the adapters would do it reads from
	// Explain, never from the settings files. It prints outside text as
	// adapter.Bound cleans it, as Explain does.
	{pkg: "internal/doctor", imports: []string{"registry", "session", "settings", "adapter", "internal/hostflags", "internal/safetext"},
		modules: []module{only("windows", modWinio)}},
	{pkg: "examples/doctor", imports: []string{"internal/doctor"}},
	// customadapter is an adapter of its own, so it imports the contract.
	{pkg: "examples/customadapter", imports: []string{"registry", "session", "settings", "adapter"}},
	// demo drives an emulated Herdr and compares what it shows with what was
	// reported (reducer, adapter.Report).
	{pkg: "examples/demo", imports: []string{"registry", "session", "settings", "reducer", "adapter", "adapters/herdr/herdrtest"},
		modules: everywhere(modHclog)},
	{pkg: "examples/embedding"},

	// The panestate command: a host for agents that are not Go programs.
	// It reads its hooks' peers' credentials (x/sys) where it runs a bridge.
	// It wraps the terminal driver for an agent that draws the tab's
	// progress itself (adapter, and internal/optional for the wrapped
	// driver's optional interfaces).
	{pkg: "cmd/panestate", imports: []string{"adapter", "registry", "session", "settings", "internal/hook", "internal/events", "internal/doctor", "internal/filelock", "internal/proc", "internal/optional"},
		modules: []module{only("linux", modXSys), only("darwin", modXSys)}},
	// The events protocol (JSON lines into a session store), shared by
	// panestate events and examples/chat; it prints the state it expects.
	{pkg: "internal/events", imports: []string{"session", "reducer"},
		banned: []string{"os", "os/...", "net", "net/...", "syscall"}, bannedWhy: "the protocol reads what it is given"},
	// The agents' hook payloads and the pane state they lead to: pure.
	{pkg: "internal/hook", banned: []string{"os", "os/...", "net", "net/...", "syscall", "io/fs"},
		bannedWhy: "the hook mapping is pure: the command does the I/O"},
}

// nevers are the design's "never" sentences, checked over every path of
// imports (except where direct is set), so a breach is named by the rule
// it breaks even when it goes through an allowed package.
var nevers = []never{
	{name: "session is a leaf", from: []string{"session/..."}, to: []string{"..."}},
	{name: "adapter knows nothing of settings or the registry", from: []string{"adapter/..."},
		to: []string{"settings/...", "registry/...", "reducer/...", "adapters/...", "examples/..."}},
	{name: "adapters import adapter and session", from: []string{"adapters/..."},
		to: []string{"registry/...", "settings/...", "reducer/...", "examples/...", "adapter/adaptertest/..."}},
	{name: "an adapter never imports another adapter", from: []string{"adapters/herdr/..."},
		to: []string{"adapters/noop/...", "adapters/tmux/...", "adapters/terminal/...", "adapters/progstatus/...", "adapters/wezterm/..."}},
	{name: "an adapter never imports another adapter", from: []string{"adapters/tmux/..."},
		to: []string{"adapters/noop/...", "adapters/herdr/...", "adapters/terminal/...", "adapters/progstatus/...", "adapters/wezterm/..."}},
	{name: "an adapter never imports another adapter", from: []string{"adapters/terminal/..."},
		to: []string{"adapters/noop/...", "adapters/herdr/...", "adapters/tmux/...", "adapters/progstatus/...", "adapters/wezterm/..."}},
	{name: "an adapter never imports another adapter", from: []string{"adapters/noop/..."},
		to: []string{"adapters/herdr/...", "adapters/tmux/...", "adapters/terminal/...", "adapters/progstatus/...", "adapters/wezterm/..."}},
	{name: "an adapter never imports another adapter", from: []string{"adapters/progstatus/..."},
		to: []string{"adapters/noop/...", "adapters/herdr/...", "adapters/tmux/...", "adapters/terminal/...", "adapters/wezterm/..."}},
	{name: "an adapter never imports another adapter", from: []string{"adapters/wezterm/..."},
		to: []string{"adapters/noop/...", "adapters/herdr/...", "adapters/tmux/...", "adapters/terminal/...", "adapters/progstatus/..."}},
	{name: "the reducer does no I/O", from: []string{"reducer/..."},
		to: []string{"settings/...", "registry/...", "adapters/...", "internal/..."}},
	{name: "settings never imports registry", from: []string{"settings/..."},
		to: []string{"registry/...", "adapter/...", "adapters/...", "reducer/...", "examples/..."}},
	{name: "only registry ties everything together", direct: true,
		from: []string{"..."}, except: []string{"registry/...", "examples/...", "cmd/...", "internal/hostflags", "internal/doctor"},
		to: []string{"registry/..."}},
	{name: "only registry ties everything together", direct: true,
		from: []string{"..."}, except: []string{"registry/...", "examples/...", "cmd/...", "internal/hostflags", "internal/doctor", "settings/...", "internal/settingsengine"},
		to: []string{"settings/..."}},
	{name: "only registry ties everything together", direct: true,
		from: []string{"..."}, except: []string{"registry/...", "examples/...", "adapters/...", "internal/agentlab"},
		to: []string{"adapters/..."}},
	{name: "hosts import registry, session and settings, and no adapter package but herdrtest and the OSC 7501 probe", direct: true,
		from: []string{"examples/..."}, to: []string{"adapters/..."},
		toExcept: []string{"adapters/herdr/herdrtest", "adapters/progstatus/probe"}},
	{name: "test kits stay out of shipped code", from: []string{"..."},
		except: []string{"examples/...", "adapter/adaptertest/...", "adapters/herdr/herdrtest/...", "internal/testenv/...", "internal/archtest/...", "internal/agentlab/..."},
		to:     []string{"adapter/adaptertest/...", "adapters/herdr/herdrtest/...", "internal/testenv/...", "internal/archtest/...", "internal/agentlab/..."}},
}
