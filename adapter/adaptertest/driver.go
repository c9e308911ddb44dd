package adaptertest

import (
	"context"
	"errors"
	"fmt"

	"github.com/panestate/panestate/adapter"
)

// Driver is an [adapter.Driver] whose Open returns its [Recorder], for tests
// of hosts and of the registry. Set the fields before the driver is put in
// registry.Options.Drivers and do not change them afterwards; Open, Check
// and Settings are then safe for concurrent use.
//
// Every Open returns the same Recorder, and a Recorder's Close is final. A
// test that expects an adapter to be reopened (a settings change replaces it)
// should pass an [adapter.DriverFunc] that returns a new Recorder each
// time instead.
type Driver struct {
	// Recorder is what Open returns.
	Recorder *Recorder
	// Default is what Settings reports: whether the registry runs the
	// adapter when the settings do not mention it.
	Default bool
	// Inactive, when non-nil, makes Open fail with an error that wraps both
	// adapter.ErrInactive and Inactive, as a driver does outside its
	// workspace.
	Inactive error
}

var (
	_ adapter.Driver        = Driver{}
	_ adapter.SettingsOwner = Driver{}
	_ adapter.Checker       = Driver{}
)

// NewDriver returns a driver, enabled by default, whose Open returns rec.
func NewDriver(rec *Recorder) *Driver { return &Driver{Recorder: rec, Default: true} }

// Open returns d.Recorder. It fails when ctx is already done (an error
// wrapping ctx.Err()), when d.Inactive is set (an error wrapping
// [adapter.ErrInactive]) and when d.Recorder is nil. It ignores p.
func (d Driver) Open(ctx context.Context, _ adapter.Params) (adapter.Adapter, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("adaptertest: open: %w", err)
	}
	if d.Inactive != nil {
		return nil, d.inactive()
	}
	if d.Recorder == nil {
		return nil, errNoRecorder
	}
	return d.Recorder, nil
}

var errNoRecorder = errors.New("adaptertest: open: Driver.Recorder is nil")

// Check returns the error Open would return for d.Inactive (wrapping
// [adapter.ErrInactive]), or nil: it lets a registry tell whether the
// adapter applies without opening it. It starts nothing.
func (d Driver) Check(adapter.Params) error {
	if d.Inactive != nil {
		return d.inactive()
	}
	return nil
}

func (d Driver) inactive() error {
	return fmt.Errorf("adaptertest: %w: %w", adapter.ErrInactive, d.Inactive)
}

// Settings returns d.Default and no keys.
func (d Driver) Settings() (enabledByDefault bool, keys []string) { return d.Default, nil }
