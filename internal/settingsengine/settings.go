package settingsengine

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
)

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
