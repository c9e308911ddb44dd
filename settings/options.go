package settings

import (
	"path/filepath"
	"time"
)

// Options locate the settings files and say whether the project may
// contribute settings; it is registry.Options.Settings. Every field is
// optional. The zero values of the durations select the defaults given beside
// each field; a negative duration makes registry.New fail.
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
	// Debounce is the quiet period after the last file event before the
	// files are re-read. 0 means 20ms.
	Debounce time.Duration
	// Grace is how long a file must stay missing or empty before that
	// counts. 0 means 500ms.
	Grace time.Duration
	// RetryAfter is the pause before an unreadable or malformed file is
	// checked again and, if still bad, reported. After that a file in error
	// is read again after RetryAfter, then twice the previous pause each
	// time, at most every 30s (or RetryAfter, if longer), until it reads.
	// 0 means 1s.
	RetryAfter time.Duration
	// PollInterval is how often a file whose directory could not be watched
	// is checked, and how often every watched directory is checked to still
	// be the one its path names. 0 means 2s.
	PollInterval time.Duration
}

// DefaultTrustFile returns <home>/.<app>/agent/trust.json, where Atomic keeps
// its trust store.
func DefaultTrustFile(home, app string) string {
	return filepath.Join(home, "."+app, "agent", "trust.json")
}
