package optional

import (
	"context"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// Release calls a's Release if it has one; nil otherwise.
func Release(ctx context.Context, a adapter.Adapter) error {
	if r, ok := a.(adapter.Releaser); ok {
		return r.Release(ctx)
	}
	return nil
}

// Close calls a's Close if it has one; nil otherwise.
func Close(ctx context.Context, a adapter.Adapter) error {
	if c, ok := a.(adapter.Closer); ok {
		return c.Close(ctx)
	}
	return nil
}

// SetSession calls a's SetSession if it has one.
func SetSession(a adapter.Adapter, id session.Identity) {
	if s, ok := a.(adapter.SessionAware); ok {
		s.SetSession(id)
	}
}

// RefreshInterval returns a's refresh interval for r, or 0 when a has none
// (a negative interval is 0 too).
func RefreshInterval(a adapter.Adapter, r adapter.Report) time.Duration {
	if f, ok := a.(adapter.Refresher); ok {
		return max(f.RefreshInterval(r), 0)
	}
	return 0
}

// Details returns a's Details, or nil.
func Details(a adapter.Adapter) map[string]string {
	if d, ok := a.(adapter.Detailer); ok {
		return d.Details()
	}
	return nil
}

// OwnsPane returns a's OwnsPane, or true.
func OwnsPane(a adapter.Adapter) bool {
	if o, ok := a.(adapter.PaneOwner); ok {
		return o.OwnsPane()
	}
	return true
}

// Settings returns whether d's adapter runs when no setting says otherwise,
// and the settings keys it owns, "enabled" first, as
// [adapter.SettingsOwner] describes; without one, true and only "enabled".
func Settings(d adapter.Driver) (enabledByDefault bool, keys []string) {
	enabledByDefault, keys = true, []string{"enabled"}
	if s, ok := d.(adapter.SettingsOwner); ok {
		var own []string
		enabledByDefault, own = s.Settings()
		for _, k := range own {
			if k != "enabled" {
				keys = append(keys, k)
			}
		}
	}
	return enabledByDefault, keys
}

// ScrubEnv returns env with d's workspace variables removed; env unchanged
// when d is no [adapter.EnvScrubber].
func ScrubEnv(d adapter.Driver, env adapter.Env) adapter.Env {
	if s, ok := d.(adapter.EnvScrubber); ok {
		return s.ScrubEnv(env)
	}
	return env
}

// Check returns what d's Open would say, as [adapter.Checker] describes;
// nil when d cannot tell.
func Check(d adapter.Driver, p adapter.Params) error {
	if c, ok := d.(adapter.Checker); ok {
		return c.Check(p)
	}
	return nil
}

// Preview returns d's Preview for p, as [adapter.Previewer] describes; nil
// when d has none.
func Preview(d adapter.Driver, p adapter.Params) map[string]string {
	if v, ok := d.(adapter.Previewer); ok {
		return v.Preview(p)
	}
	return nil
}
