package settingsengine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Section is a top-level settings section the library owns, normally one per
// registered adapter. The key "enabled" is always known; Keys lists the
// others the adapter reads. Any other key inside the section is warned about.
type Section struct {
	Name string
	Keys []string
}

// Options configure [Load] and [Watch]. The zero values of the durations
// select the defaults given beside each field.
type Options struct {
	// App is the host application's name, e.g. "atomic". It makes the
	// default paths and is required unless GlobalPath is given and either
	// ProjectPath is given or ProjectRoot is empty.
	App string
	// Home is the user's home directory; "" means os.UserHomeDir.
	Home string
	// GlobalPath is the global settings file; "" means
	// <Home>/.<App>/agent/settings.json.
	GlobalPath string
	// ProjectRoot is the project's root directory; "" means no project
	// layer. It is what Trust receives (made absolute).
	ProjectRoot string
	// ProjectPath is the project settings file; "" means
	// <ProjectRoot>/.<App>/settings.json.
	ProjectPath string
	// Trust says whether the project may contribute settings. nil means
	// untrusted, unless TrustFile is set. A returned error means untrusted;
	// the error is shown in [Settings.Files]. [Load], a [Reader] and a
	// [Watcher] call it before every read of the project file, from a
	// goroutine of their own, so it must be fast, must not prompt, and may
	// run concurrently with the host's code and with itself (from several
	// Watchers, Readers and Load calls).
	//
	// Faults in it never reach the host. A panic is recovered: the project
	// counts as untrusted and one warning is logged. A call that has not
	// returned after [TrustTimeout] counts as untrusted too (one warning);
	// it is left running, since nothing can stop it. A Watcher starts no
	// other call until it returns, then uses its late answer in one reload
	// and asks again on the next; Load has returned by then and drops it.
	//
	// At most four calls run at once in the whole process (from any
	// Watchers, Readers and Load calls), hung ones included. A call beyond that
	// waits for one of them to return, within the same TrustTimeout; while
	// all four hang, no call is made and the project is untrusted at once.
	// [Watcher.Close] never waits for Trust, so a goroutine stuck in it
	// outlives the Watcher until the function returns; it touches nothing
	// after that.
	Trust func(projectRoot string) (bool, error)
	// TrustFile is the path of an Atomic-style trust store (see
	// [TrustStore]). When Trust is nil it decides, and a [Watcher] watches
	// it and re-decides when it changes. A store that cannot be read or
	// parsed means untrusted, never its earlier content (a Watcher re-checks
	// a bad store once after RetryAfter before it counts, as for a settings
	// file). [Settings.Files] lists the store. [DefaultTrustFile] gives the
	// usual path.
	TrustFile string
	// Sections lists the sections to read; every other top-level key of the
	// files is ignored without a warning.
	Sections []Section
	// Logger receives warnings and errors, each once per file content.
	// nil means silent.
	Logger hclog.Logger
	// Debounce is the quiet period after the last file event before the
	// files are re-read. 0 means 20ms.
	Debounce time.Duration
	// Grace is how long a file must stay missing or empty before that
	// counts. 0 means 500ms.
	Grace time.Duration
	// RetryAfter is the pause before an unreadable or malformed file is
	// checked again and, if still bad, reported. After that a [Watcher]
	// reads a file in error again after RetryAfter, then twice the previous
	// pause each time, at most every 30s (or RetryAfter, if longer), until
	// it reads. 0 means 1s.
	RetryAfter time.Duration
	// PollInterval is how often a [Watcher] checks a file whose directory
	// could not be watched, and checks that every watched directory is still
	// the one its path names (after a rename of an ancestor it watches the
	// new one). 0 means 2s.
	PollInterval time.Duration
}

// Default durations used when the corresponding [Options] field is zero.
const (
	DefaultDebounce     = 20 * time.Millisecond
	DefaultGrace        = 500 * time.Millisecond
	DefaultRetryAfter   = time.Second
	DefaultPollInterval = 2 * time.Second
)

// MaxFileSize is the largest settings or trust file read. Larger files are
// refused with an error wrapping [ErrTooLarge].
const MaxFileSize = 1 << 20

// ErrOptions is wrapped by the error [Load] and [Watch] return for invalid
// [Options].
var ErrOptions = errors.New("settings: invalid options")

// The names a section and its keys may have.
const (
	sectionPattern = `^[a-z][a-z0-9_-]*$`
	keyPattern     = `^[A-Za-z][A-Za-z0-9_-]*$`
)

// validSection and validKey check a name against sectionPattern and
// keyPattern by hand: a regular expression compiled when the package
// starts costs every program that links it, panestate's hook included.
func validSection(s string) bool { return validName(s, false) }

func validKey(s string) bool { return validName(s, true) }

// validName reports whether s is a letter (lower case unless upper) then
// letters, digits, '_' and '-'.
func validName(s string, upper bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || upper && 'A' <= c && c <= 'Z'
		other := '0' <= c && c <= '9' || c == '_' || c == '-'
		if !letter && (i == 0 || !other) {
			return false
		}
	}
	return true
}

// config is Options checked and completed.
type config struct {
	globalPath   string
	projectRoot  string
	projectPath  string
	trustFile    string
	trust        func(string) (bool, error)
	sections     []Section
	known        map[string]map[string]bool
	log          hclog.Logger
	trustTimeout time.Duration
	debounce     time.Duration
	grace        time.Duration
	retry        time.Duration
	poll         time.Duration
}

func optErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrOptions}, args...)...)
}

func newConfig(o Options) (*config, error) {
	c := &config{
		trust:        o.Trust,
		trustTimeout: TrustTimeout,
		log:          o.Logger,
		debounce:     o.Debounce,
		grace:        o.Grace,
		retry:        o.RetryAfter,
		poll:         o.PollInterval,
		known:        map[string]map[string]bool{},
	}
	if c.log == nil {
		c.log = hclog.NewNullLogger()
	}
	c.log = c.log.Named("settings")
	for _, d := range []struct {
		p   *time.Duration
		def time.Duration
		n   string
	}{{&c.debounce, DefaultDebounce, "Debounce"}, {&c.grace, DefaultGrace, "Grace"}, {&c.retry, DefaultRetryAfter, "RetryAfter"}, {&c.poll, DefaultPollInterval, "PollInterval"}} {
		if *d.p < 0 {
			return nil, optErr("%s is negative", d.n)
		}
		if *d.p == 0 {
			*d.p = d.def
		}
	}
	needApp := o.GlobalPath == "" || (o.ProjectRoot != "" && o.ProjectPath == "")
	if o.App != "" && (o.App == "." || o.App == ".." || filepath.Base(o.App) != o.App || o.App != filepath.Clean(o.App)) {
		return nil, optErr("app name %q is not a plain name", o.App)
	}
	if needApp && o.App == "" {
		return nil, optErr("App is required unless the file paths are given")
	}
	if o.ProjectPath != "" && o.ProjectRoot == "" {
		return nil, optErr("ProjectPath is set without ProjectRoot")
	}
	abs := func(p string) (string, error) {
		if p == "" {
			return "", nil
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return "", optErr("path %q: %v", p, err)
		}
		return a, nil
	}
	var err error
	if o.GlobalPath != "" {
		if c.globalPath, err = abs(o.GlobalPath); err != nil {
			return nil, err
		}
	} else {
		home := o.Home
		if home == "" {
			if home, err = os.UserHomeDir(); err != nil {
				return nil, optErr("no home directory: %v", err)
			}
		}
		if c.globalPath, err = abs(filepath.Join(home, "."+o.App, "agent", "settings.json")); err != nil {
			return nil, err
		}
	}
	if c.projectRoot, err = abs(o.ProjectRoot); err != nil {
		return nil, err
	}
	if c.projectRoot != "" {
		p := o.ProjectPath
		if p == "" {
			p = filepath.Join(c.projectRoot, "."+o.App, "settings.json")
		}
		if c.projectPath, err = abs(p); err != nil {
			return nil, err
		}
	}
	if c.trustFile, err = abs(o.TrustFile); err != nil {
		return nil, err
	}
	for _, s := range o.Sections {
		if !validSection(s.Name) {
			return nil, optErr("section name %q must match %s", s.Name, sectionPattern)
		}
		if c.known[s.Name] != nil {
			return nil, optErr("section %q listed twice", s.Name)
		}
		keys := map[string]bool{"enabled": true}
		for _, k := range s.Keys {
			if !validKey(k) {
				return nil, optErr("key %q of section %q must match %s", k, s.Name, keyPattern)
			}
			keys[k] = true
		}
		c.known[s.Name] = keys
		c.sections = append(c.sections, Section{Name: s.Name, Keys: slices.Clone(s.Keys)})
	}
	return c, nil
}
