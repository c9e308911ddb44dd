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
