package settings

import "fmt"

// Layer names one settings layer. Later layers win over earlier ones.
type Layer uint8

const (
	// LayerDefault is the built-in defaults: what an adapter uses when no
	// file sets a value. It is the zero Layer.
	LayerDefault Layer = iota
	// LayerGlobal is the user's global settings file.
	LayerGlobal
	// LayerProject is the project's settings file, applied only when the
	// project is trusted.
	LayerProject
)

// MarshalText renders the layer as its name, so that JSON shows "global"
// rather than a number.
func (l Layer) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText parses a layer name written by MarshalText.
func (l *Layer) UnmarshalText(text []byte) error {
	for _, c := range []Layer{LayerDefault, LayerGlobal, LayerProject} {
		if c.String() == string(text) {
			*l = c
			return nil
		}
	}
	return fmt.Errorf("settings: unknown layer %q (want default, global or project)", text)
}

// String returns "default", "global" or "project".
func (l Layer) String() string {
	switch l {
	case LayerDefault:
		return "default"
	case LayerGlobal:
		return "global"
	case LayerProject:
		return "project"
	}
	return fmt.Sprintf("layer(%d)", uint8(l))
}

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
	ConditionTooLarge                           // larger than 1 MiB
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

// FileStatus describes one file in registry.Explanation.Files: a layer's settings file, or
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
