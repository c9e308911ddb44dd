package settingsengine

import "github.com/panestate/panestate/settings"

// The types a host sees are declared in package settings; the engine uses
// them under the same names.
type (
	Layer         = settings.Layer
	FileCondition = settings.FileCondition
	FileStatus    = settings.FileStatus
)

// Layers.
const (
	LayerDefault = settings.LayerDefault
	LayerGlobal  = settings.LayerGlobal
	LayerProject = settings.LayerProject
)

// File conditions.
const (
	ConditionLoaded    = settings.ConditionLoaded
	ConditionEmpty     = settings.ConditionEmpty
	ConditionMissing   = settings.ConditionMissing
	ConditionError     = settings.ConditionError
	ConditionTooLarge  = settings.ConditionTooLarge
	ConditionUntrusted = settings.ConditionUntrusted
)

// FromHost returns the engine's options for what a host set, with app
// naming the files; the caller adds Sections and Logger. The durations a
// host does not set stay zero: the defaults.
func FromHost(app string, h settings.Options) Options {
	return Options{
		App:         app,
		Home:        h.Home,
		GlobalPath:  h.GlobalPath,
		ProjectRoot: h.ProjectRoot,
		ProjectPath: h.ProjectPath,
		Trust:       h.Trust,
		TrustFile:   h.TrustFile,
	}
}
