package adaptertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/panestate/panestate/adapter"
)

// settingsDriver is a driver whose Check and Open are given as functions of
// the settings section, to build drivers that break RunDriver's rules.
type settingsDriver struct {
	check func(json.RawMessage) error
	open  func(json.RawMessage) error
	// leak, when set, is started by an inactive Open and never ends
	// until the test closes it.
	leak chan struct{}
}

func (d settingsDriver) Check(p adapter.Params) error { return d.check(p.Settings) }

func (d settingsDriver) Open(_ context.Context, p adapter.Params) (adapter.Adapter, error) {
	if err := d.open(p.Settings); err != nil {
		if d.leak != nil && errors.Is(err, adapter.ErrInactive) {
			go func() { <-d.leak }()
		}
		return nil, err
	}
	return NewRecorder(), nil
}

var (
	errBadColor  = errors.New("x: settings: color is not a string")
	errInactiveX = fmt.Errorf("x: %w: not here", adapter.ErrInactive)
)

func badColor(section json.RawMessage) error {
	if string(section) == `{"color":1}` {
		return errBadColor
	}
	return nil
}

func TestRunDriverPassesGoodDrivers(t *testing.T) {
	t.Run("settingsDriver", func(t *testing.T) {
		RunDriver(t, settingsDriver{check: badColor, open: badColor}, map[string]adapter.Params{
			"good section": {Settings: json.RawMessage(`{"color":"red"}`)},
			"bad section":  {Settings: json.RawMessage(`{"color":1}`)},
		})
	})
	t.Run("inactive Driver", func(t *testing.T) {
		RunDriver(t, Driver{Inactive: errors.New("not here")}, map[string]adapter.Params{"anywhere": {}})
	})
	t.Run("active Driver", func(t *testing.T) {
		RunDriver(t, NewDriver(NewRecorder()), map[string]adapter.Params{"anywhere": {}})
	})
}

func TestRunDriverCatchesBrokenDrivers(t *testing.T) {
	inactive := func(json.RawMessage) error { return errInactiveX }
	tests := []struct {
		name    string
		driver  settingsDriver
		section string
	}{
		{"Check misses the bad setting", settingsDriver{check: func(json.RawMessage) error { return nil }, open: badColor}, `{"color":1}`},
		{"Check fails where Open succeeds", settingsDriver{check: badColor, open: func(json.RawMessage) error { return nil }}, `{"color":1}`},
		{"Check says inactive for a bad setting", settingsDriver{check: inactive, open: badColor}, `{"color":1}`},
		{"Check words the settings error differently", settingsDriver{
			check: func(s json.RawMessage) error {
				if badColor(s) != nil {
					return errors.New("color")
				}
				return nil
			},
			open: badColor,
		}, `{"color":1}`},
		{"an inactive Open leaves a goroutine", settingsDriver{check: inactive, open: inactive, leak: make(chan struct{})}, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.driver.leak != nil {
				defer close(tt.driver.leak)
			}
			f := &fakeT{ctx: t.Context()}
			checkDriver(f, tt.driver, adapter.Params{Settings: json.RawMessage(tt.section)})
			if len(f.failures) == 0 {
				t.Errorf("RunDriver passed a driver whose %s", tt.name)
			}
		})
	}
}
