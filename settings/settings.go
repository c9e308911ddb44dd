package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
)

// FileCondition says how a settings file (or the trust store) was found on
// the last read: [FileStatus.Condition]. The zero value is not a valid
// condition. The word "state" is kept for the pane's idle, working and
// blocked.
type FileCondition uint8

// File conditions.
const (
	ConditionLoaded    FileCondition = iota + 1 // read and in effect
	ConditionEmpty                              // zero bytes: an empty layer
	ConditionMissing                            // does not exist: an empty layer, not an error
	ConditionError                              // unreadable or malformed: see Err
	ConditionTooLarge                           // larger than MaxFileSize
	ConditionUntrusted                          // project file not read: see TrustReason
)

var conditionNames = [...]string{"", "loaded", "empty", "missing", "error", "too_large", "untrusted"}

// Valid reports whether c is one of the Condition constants.
func (c FileCondition) Valid() bool { return c >= ConditionLoaded && c <= ConditionUntrusted }

// String returns the condition's name: "loaded", "empty", "missing",
// "error", "too_large" or "untrusted".
func (c FileCondition) String() string {
	if c.Valid() {
		return conditionNames[c]
	}
	return fmt.Sprintf("FileCondition(%d)", uint8(c))
}

// MarshalText renders the condition as its name, so that JSON shows
// "loaded" rather than a number. An invalid condition is an error.
func (c FileCondition) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("settings: invalid file condition %d", uint8(c))
	}
	return []byte(conditionNames[c]), nil
}

// UnmarshalText parses a name written by MarshalText.
func (c *FileCondition) UnmarshalText(text []byte) error {
	for i := ConditionLoaded; i <= ConditionUntrusted; i++ {
		if conditionNames[i] == string(text) {
			*c = i
			return nil
		}
	}
	return fmt.Errorf("settings: unknown file condition %q (want loaded, empty, missing, error, too_large or untrusted)", text)
}

// Warning is a value in a settings file that the library ignored: a key it
// does not know inside a section it owns, or a value of the wrong type.
type Warning struct {
	File    string // the file's path
	Key     string // dotted key, e.g. "herdr.enabled"
	Message string // what is wrong and what happens instead
}

// String returns "<file>: <key>: <message>".
func (w Warning) String() string { return w.File + ": " + w.Key + ": " + w.Message }

// Error returns the warning prefixed with "settings: ", so a Warning can be
// logged or joined as an error.
func (w Warning) Error() string { return "settings: " + w.String() }

// FileStatus describes one file for Explain: a layer's settings file, or
// the trust store when TrustStore is set.
type FileStatus struct {
	// Layer is the settings layer the file feeds. It is LayerDefault (the
	// zero value, "no layer") for the trust store, which holds no settings.
	Layer Layer  `json:"layer"`
	Path  string `json:"path"`
	// TrustStore marks the entry for the trust store file of
	// [Options.TrustFile]. It decides whether the project layer applies;
	// while it is unreadable or malformed the project is untrusted.
	TrustStore bool `json:"trust_store,omitempty"`
	// Condition is how the file was found on the last read.
	Condition FileCondition `json:"condition"`
	// Err is the error that put the file in ConditionError or ConditionTooLarge,
	// or a trust error for an untrusted project.
	Err string `json:"error,omitempty"`
	// Stale reports that the file is bad now and its last good content is
	// still in effect. It is never set for the trust store.
	Stale bool `json:"stale,omitempty"`
	// Polling reports that the file's directory could not be watched and
	// the file is polled instead.
	Polling bool `json:"polling,omitempty"`
	// Trusted and TrustReason are set for the project layer only.
	Trusted     bool   `json:"trusted,omitempty"`
	TrustReason string `json:"trust_reason,omitempty"`
}

type enabledValue struct {
	value bool
	from  Layer
}

// Settings is the effective configuration: an immutable value, safe for
// concurrent use. Its zero value is the default configuration (no file sets
// anything).
type Settings struct {
	enabled  map[string]enabledValue
	sections map[string]json.RawMessage
	warnings []Warning
	files    []FileStatus
}

// Enabled reports whether the adapter owning section name is enabled, and
// which layer decided. A layer decides only with the JSON literal true or
// false in <name>.enabled; the project layer wins over the global one. When
// no layer decides, Enabled returns def and [LayerDefault].
func (s Settings) Enabled(name string, def bool) (enabled bool, from Layer) {
	if v, ok := s.enabled[name]; ok {
		return v.value, v.from
	}
	return def, LayerDefault
}

// Section returns the merged section name without "enabled", without ignored
// values, as canonical JSON (compact, object keys sorted), or nil when no
// layer sets anything in it. Equal bytes mean equal settings for the
// adapter. The caller may keep and modify the returned slice.
func (s Settings) Section(name string) json.RawMessage {
	return bytes.Clone(s.sections[name])
}

// Warnings returns the warnings about the files currently in effect, global
// file first.
func (s Settings) Warnings() []Warning { return slices.Clone(s.warnings) }

// Files returns the status of each file read: the global file, then the
// project file when a project root is configured, then the trust store
// ([FileStatus.TrustStore] set) when it decides trust, that is when
// [Options.TrustFile] is set, [Options.Trust] is nil and a project root is
// configured.
func (s Settings) Files() []FileStatus { return slices.Clone(s.files) }

// Equal reports whether s and o have the same effective values: the same
// enabled decisions (value and deciding layer) and the same section bytes.
// Warnings and file statuses are diagnostics and are not compared.
func (s Settings) Equal(o Settings) bool {
	return maps.Equal(s.enabled, o.enabled) &&
		maps.EqualFunc(s.sections, o.sections, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })
}

// build merges the layers, lowest first. A nil layer is empty.
func build(c *config, global, project *layerContent, files []FileStatus) Settings {
	s := Settings{files: files}
	k := koanf.New(".")
	for _, l := range []struct {
		c     *layerContent
		layer Layer
	}{{global, LayerGlobal}, {project, LayerProject}} {
		if l.c == nil {
			continue
		}
		for name, v := range l.c.enabled {
			if s.enabled == nil {
				s.enabled = map[string]enabledValue{}
			}
			s.enabled[name] = enabledValue{value: v, from: l.layer}
		}
		s.warnings = append(s.warnings, l.c.warnings...)
		if len(l.c.sections) > 0 {
			// confmap copies the map, and koanf merges maps recursively
			// and replaces everything else.
			_ = k.Load(confmap.Provider(l.c.sections, ""), nil)
		}
	}
	for name, v := range k.Raw() {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			if s.sections == nil {
				s.sections = map[string]json.RawMessage{}
			}
			s.sections[name] = canonical(m)
		}
	}
	return s
}
