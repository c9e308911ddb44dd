package settings

import "path/filepath"

// Options locate the settings files and say whether the project may
// contribute settings; it is registry.Options.Settings. Every field is
// optional.
type Options struct {
	// Home is the user's home directory; "" means os.UserHomeDir.
	Home string
	// GlobalPath is the global settings file; "" means
	// <Home>/.<app>/agent/settings.json, where app is registry.Options.App.
	GlobalPath string
	// ProjectRoot is the project's root directory; "" means no project
	// layer. It is what Trust receives (made absolute).
	ProjectRoot string
	// ProjectPath is the project settings file; "" means
	// <ProjectRoot>/.<app>/settings.json.
	ProjectPath string
	// Trust says whether the project may contribute settings. nil means
	// untrusted, unless TrustFile is set. A returned error means untrusted;
	// the error is shown in the project's [FileStatus]. It is called before
	// every read of the project file, from a goroutine of the registry's, so
	// it must be fast, must not prompt, and may run concurrently with the
	// host's code and with itself.
	//
	// Faults in it never reach the host. A panic is recovered: the project
	// counts as untrusted and one warning is logged. A call that has not
	// returned after half a second counts as untrusted too (one warning); it
	// is left running, since nothing can stop it, and no other call starts
	// until it returns. At most four calls run at once in the whole process,
	// hung ones included. Closing the registry never waits for Trust.
	Trust func(projectRoot string) (bool, error)
	// TrustFile is the path of an Atomic-style trust store: a JSON object
	// that maps a project's canonical absolute path to a decision. The saved
	// decision of the project directory or its nearest ancestor wins: true
	// is trusted; false, "ask" (the library cannot prompt), any other value,
	// no entry, a missing file or a malformed file are untrusted. When Trust
	// is nil the store decides, and the registry watches it and re-decides
	// when it changes. The store is only read, never written.
	// [DefaultTrustFile] gives the usual path.
	TrustFile string
}

// DefaultTrustFile returns <home>/.<app>/agent/trust.json, where Atomic keeps
// its trust store.
func DefaultTrustFile(home, app string) string {
	return filepath.Join(home, "."+app, "agent", "trust.json")
}
