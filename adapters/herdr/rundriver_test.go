package herdr

import (
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/session"
)

// TestDriverAgreesWithOpen checks, with adaptertest.RunDriver, that Check
// says what Open does, in a pane and outside one, for an eligible host and
// not, with good and bad settings and app names, and that an inactive Open
// starts nothing.
func TestDriverAgreesWithOpen(t *testing.T) {
	// One emulated Herdr for every case: its server's goroutines then
	// predate each case's goroutine-leak check.
	f := newFixture(t, herdrtest.Options{})
	with := func(change func(p *adapter.Params)) adapter.Params {
		p := f.params()
		change(&p)
		return p
	}
	settings := func(raw string) func(p *adapter.Params) {
		return func(p *adapter.Params) { p.Settings = []byte(raw) }
	}
	outside := func(p *adapter.Params) { p.Env = adapter.Env{"PATH=" + f.env.Get("PATH")} }
	adaptertest.RunDriver(t, f.drv, map[string]adapter.Params{
		"in a pane":                       f.params(),
		"in a pane, socket":               with(settings(`{"transport":"socket"}`)),
		"in a pane, cli":                  with(settings(`{"transport":"cli","timeout":"2s","refresh":0}`)),
		"in a pane, clamped timeout":      with(settings(`{"timeout":1}`)),
		"in a pane, bad timeout":          with(settings(`{"timeout":"soon"}`)),
		"in a pane, bad refresh":          with(settings(`{"refresh":true}`)),
		"in a pane, bad transport":        with(settings(`{"transport":"pigeon"}`)),
		"in a pane, bad source":           with(settings(`{"source":"herdr:x"}`)),
		"in a pane, built-in agent label": with(settings(`{"agent":"claude"}`)),
		"in a pane, not JSON":             with(settings(`{"timeout":`)),
		// The source and label Open derives from the app name when the
		// section sets none.
		"in a pane, app named like a built-in agent": with(func(p *adapter.Params) { p.App = "claude" }),
		"in a pane, app with a space":                with(func(p *adapter.Params) { p.App = "my chat" }),
		"in a pane, app set apart by the settings": with(func(p *adapter.Params) {
			p.App = "claude"
			p.Settings = []byte(`{"agent":"mychat"}`)
		}),
		"in a pane, print mode": with(func(p *adapter.Params) {
			p.Host = session.Host{Root: true}
		}),
		"in a pane, conflicting reporter": with(func(p *adapter.Params) {
			p.Host.LoadedExtensions = []string{"/home/u/.pi/agent/extensions/herdr-agent-state.ts"}
		}),
		"outside herdr":               with(outside),
		"outside herdr, bad settings": with(func(p *adapter.Params) { outside(p); settings(`{"timeout":"soon"}`)(p) }),
	})
}
