package settings

// Layer names one settings layer, as [FileStatus.Layer] and the registry's
// Explain show it. Later layers win over earlier ones.
type Layer string

// Layers, in the order they apply.
const (
	// LayerDefault is the built-in defaults: what an adapter uses when no
	// file sets a value.
	LayerDefault Layer = "default"
	// LayerGlobal is the user's global settings file.
	LayerGlobal Layer = "global"
	// LayerProject is the project's settings file, applied only when the
	// project is trusted.
	LayerProject Layer = "project"
)

// FileCondition says how a settings file (or the trust store) was found on
// the last read: [FileStatus.Condition]. The word "state" is kept for the
// pane's idle, working and blocked.
type FileCondition string

// File conditions.
const (
	ConditionLoaded    FileCondition = "loaded"    // read and in effect
	ConditionEmpty     FileCondition = "empty"     // zero bytes: an empty layer
	ConditionMissing   FileCondition = "missing"   // does not exist: an empty layer, not an error
	ConditionError     FileCondition = "error"     // unreadable or malformed: see Err
	ConditionTooLarge  FileCondition = "too_large" // larger than 1 MiB
	ConditionUntrusted FileCondition = "untrusted" // project file not read: see TrustReason
)

// FileStatus describes one file in registry.Explanation.Files: a layer's
// settings file, or the trust store when TrustStore is set.
type FileStatus struct {
	// Layer is the settings layer the file feeds. It is empty for the trust
	// store, which holds no settings.
	Layer Layer  `json:"layer,omitempty"`
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
	// TrustReason, set for the project layer only, says why the project is
	// trusted or not; when it is not, Condition is ConditionUntrusted.
	TrustReason string `json:"trust_reason,omitempty"`
}
