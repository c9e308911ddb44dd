package adaptertest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/optional"
)

// RunDriver checks that d's Check says what its Open does, for each named
// set of Params in cases (the places the driver may be opened in: its
// workspace, outside it, with good and bad settings sections). For each case,
// in a subtest named after it:
//
//   - Check agrees with Open: both succeed, or both fail, and an error of
//     one wraps [adapter.ErrInactive] exactly when the other's does.
//   - The settings check returns the error Open would: when Open fails with
//     an error that does not wrap ErrInactive (a bad settings section), Check
//     returns an error with the same message.
//   - An inactive Open starts nothing: no goroutine is left after an Open
//     that fails with ErrInactive (checked with goleak, with its usual
//     retries).
//
// A driver that does not implement [adapter.Checker] is checked only for
// the last rule, since the registry then assumes it applies. An adapter that
// opens is closed at once. Like [Run], RunDriver must not run in parallel
// with tests that start goroutines of their own.
func RunDriver(t *testing.T, d adapter.Driver, cases map[string]adapter.Params) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		t.Run(name, func(t *testing.T) { checkDriver(t, d, cases[name]) })
	}
}

// driverT is what checkDriver needs of a *testing.T; the package's tests
// give it a fake one, to prove that the checks fail broken drivers.
type driverT interface {
	Context() context.Context
	Errorf(format string, args ...any)
}

// checkDriver checks d with p, as RunDriver describes.
func checkDriver(t driverT, d adapter.Driver, p adapter.Params) {
	_, checks := d.(adapter.Checker)
	before := goleak.IgnoreCurrent()
	checkErr := optional.Check(d, p)
	a, openErr := d.Open(t.Context(), p)
	if a != nil {
		if err := optional.Close(context.WithoutCancel(t.Context()), a); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	inactive := errors.Is(openErr, adapter.ErrInactive)
	if inactive {
		if err := goleak.Find(before); err != nil {
			t.Errorf("Open failed with ErrInactive (%v) but left a goroutine running: %v", openErr, err)
		}
	}
	if !checks {
		return
	}
	switch {
	case openErr == nil && checkErr != nil:
		t.Errorf("Check = %v, but Open succeeded", checkErr)
	case openErr != nil && checkErr == nil:
		t.Errorf("Check = nil, but Open failed: %v", openErr)
	case openErr != nil && inactive != errors.Is(checkErr, adapter.ErrInactive):
		t.Errorf("Check = %v, Open = %v: one wraps ErrInactive and the other does not", checkErr, openErr)
	case openErr != nil && !inactive && checkErr.Error() != openErr.Error():
		t.Errorf("Check = %q, want the settings error Open returns: %q", checkErr, openErr)
	}
}
