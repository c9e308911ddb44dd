package hostflags

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
	"github.com/panestate/panestate/settings"
)

// DefaultApp is the application name used when --app is not given.
const DefaultApp = "chat"

// Flags holds the parsed host flags. Create it with [Register]; its fields
// are set when the FlagSet is parsed.
type Flags struct {
	App          string   // --app
	Project      string   // --project; "" means the working directory
	TrustProject bool     // --trust-project
	Mode         string   // --mode
	NoUI         bool     // --no-ui
	Role         string   // --role
	Extensions   []string // --loaded-extension, in order
}

// Register defines the host flags on fs and returns the Flags they fill in.
func Register(fs *flag.FlagSet) *Flags { return RegisterApp(fs, DefaultApp) }

// RegisterApp is Register with app as the default of --app.
func RegisterApp(fs *flag.FlagSet, app string) *Flags {
	f := new(Flags)
	fs.StringVar(&f.App, "app", app,
		"application `name`: settings in ~/.NAME/agent/settings.json and <project>/.NAME/settings.json, Herdr source custom:NAME")
	fs.StringVar(&f.Project, "project", "", "project `directory` (default: the working directory)")
	fs.BoolVar(&f.TrustProject, "trust-project", false, "trust the project: apply <project>/.NAME/settings.json")
	fs.StringVar(&f.Mode, "mode", "tui", "how the host runs: tui, print, json or rpc (only tui, with a UI, claims a pane)")
	fs.BoolVar(&f.NoUI, "no-ui", false, "the host has no UI")
	fs.StringVar(&f.Role, "role", "root", "the host's role: root, subagent or workflow-stage (only root claims a pane)")
	fs.Func("loaded-extension", "`path` of an extension the host loaded (repeatable)", func(path string) error {
		f.Extensions = append(f.Extensions, path)
		return nil
	})
	return f
}

// Host returns the host context the flags describe: interactive for mode
// tui with a UI, root for role root. It fails on an unknown mode or role.
func (f *Flags) Host() (session.Host, error) {
	switch f.Mode {
	case "tui", "print", "json", "rpc":
	default:
		return session.Host{}, fmt.Errorf("hostflags: unknown mode %q (want tui, print, json or rpc)", f.Mode)
	}
	switch f.Role {
	case "root", "subagent", "workflow-stage":
	default:
		return session.Host{}, fmt.Errorf("hostflags: unknown role %q (want root, subagent or workflow-stage)", f.Role)
	}
	return session.Host{
		Interactive:      f.Mode == "tui" && !f.NoUI,
		Root:             f.Role == "root",
		LoadedExtensions: f.Extensions,
	}, nil
}

// Options returns the registry options for a host started with these flags
// in the environment env (os.Environ form), logging to log (nil is silent).
//
// The home directory, which locates the global settings file, is taken from
// env (HOME, or USERPROFILE on Windows), not from the process, so that a
// test can point it at a temporary directory. The project is trusted exactly
// when --trust-project was given.
func (f *Flags) Options(env []string, log hclog.Logger) (registry.Options, error) {
	host, err := f.Host()
	if err != nil {
		return registry.Options{}, err
	}
	project := f.Project
	if project == "" {
		if project, err = os.Getwd(); err != nil {
			return registry.Options{}, fmt.Errorf("hostflags: project directory: %w", err)
		}
	}
	if project, err = filepath.Abs(project); err != nil {
		return registry.Options{}, fmt.Errorf("hostflags: project directory: %w", err)
	}
	trusted := f.TrustProject
	return registry.Options{
		App:    f.App,
		Logger: log,
		Host:   host,
		Env:    env,
		Settings: settings.Options{
			Home:        home(env),
			ProjectRoot: project,
			// A real host asks its own trust store (or the person); here a
			// flag decides. Without it the project file is not even read.
			Trust: func(string) (bool, error) { return trusted, nil },
		},
	}, nil
}

// home returns the home directory named by env, or "" (which makes package
// settings ask os.UserHomeDir).
func home(env []string) string {
	key := "HOME"
	if runtime.GOOS == "windows" {
		key = "USERPROFILE"
	}
	return Getenv(env, key)
}

// Getenv returns the value of key in env (os.Environ form), or "" when it
// is unset. When key is set more than once the last one wins, as in os/exec
// and as the adapters read it.
func Getenv(env []string, key string) string {
	v, _ := adapter.Env(env).Lookup(key)
	return v
}
