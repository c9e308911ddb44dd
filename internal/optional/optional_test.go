package optional

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

type bare struct{}

func (bare) Report(context.Context, adapter.Report) error { return nil }

type full struct {
	bare
	released, closed bool
	id               session.Identity
}

func (f *full) Release(context.Context) error  { f.released = true; return nil }
func (f *full) Close(context.Context) error    { f.closed = true; return nil }
func (f *full) SetSession(id session.Identity) { f.id = id }
func (f *full) OwnsPane() bool                 { return false }
func (f *full) RefreshInterval(r adapter.Report) time.Duration {
	if r.State == adapter.StateWorking {
		return -time.Second // a negative interval means never
	}
	return time.Minute
}
func (f *full) Details() map[string]string { return map[string]string{"k": "v"} }

type fullDriver struct{ adapter.DriverFunc }

func (fullDriver) Settings() (bool, []string) { return false, []string{"enabled", "color"} }
func (fullDriver) ScrubEnv(e adapter.Env) adapter.Env {
	return e.Without(func(k string) bool { return k == "X" })
}
func (fullDriver) Preview(p adapter.Params) map[string]string {
	return map[string]string{"in": p.Env.Get("IN")}
}
func (fullDriver) Check(p adapter.Params) error {
	if p.Env.Get("IN") == "" {
		return adapter.ErrInactive
	}
	if string(p.Settings) == `{"color":1}` {
		return errors.New("color: not a string")
	}
	return nil
}

func TestOptionalInterfaceHelpers(t *testing.T) {
	ctx := t.Context()
	var b adapter.Adapter = bare{}
	if Release(ctx, b) != nil || Close(ctx, b) != nil || Details(b) != nil {
		t.Error("fallbacks of a bare adapter")
	}
	SetSession(b, session.Identity{ID: "x"}) // no-op, no panic
	f := &full{}
	if Release(ctx, f); !f.released {
		t.Error("Release not called")
	}
	if Close(ctx, f); !f.closed {
		t.Error("Close not called")
	}
	if SetSession(f, session.Identity{ID: "s"}); f.id.ID != "s" {
		t.Error("SetSession not called")
	}
	if !OwnsPane(b) || OwnsPane(f) {
		t.Error("OwnsPane: want the fallback true for a bare adapter, the method's false for the other")
	}
	if RefreshInterval(b, adapter.Report{State: adapter.StateIdle}) != 0 ||
		RefreshInterval(f, adapter.Report{State: adapter.StateIdle}) != time.Minute ||
		RefreshInterval(f, adapter.Report{State: adapter.StateWorking}) != 0 {
		t.Error("RefreshInterval: want 0 as the fallback and for a negative interval, the method's otherwise")
	}
	if Details(f)["k"] != "v" {
		t.Error("Details not called")
	}

	plain := adapter.DriverFunc(func(context.Context, adapter.Params) (adapter.Adapter, error) { return bare{}, nil })
	def, keys := Settings(plain)
	if !def || Check(plain, adapter.Params{}) != nil || Check(plain, adapter.Params{Settings: json.RawMessage(`{"color":1}`)}) != nil {
		t.Error("driver fallbacks")
	}
	if diff := cmp.Diff(keys, []string{"enabled"}); diff != "" {
		t.Error(diff)
	}
	if got := Preview(plain, adapter.Params{}); got != nil {
		t.Errorf("Preview fallback = %v, want nil", got)
	}
	if got := ScrubEnv(plain, adapter.Env{"X=1"}); len(got) != 1 {
		t.Error("ScrubEnv fallback changed env")
	}
	d := fullDriver{plain}
	def, keys = Settings(d)
	if def || !errors.Is(Check(d, adapter.Params{}), adapter.ErrInactive) {
		t.Error("driver capabilities not used")
	}
	in := adapter.Env{"IN=1"}
	if err := Check(d, adapter.Params{Env: in, Settings: json.RawMessage(`{"color":1}`)}); err == nil || !strings.Contains(err.Error(), "color") {
		t.Errorf("Check of a bad section = %v, want the driver's error", err)
	}
	if diff := cmp.Diff(Preview(d, adapter.Params{Env: in}), map[string]string{"in": "1"}); diff != "" {
		t.Errorf("Preview (-got +want):\n%s", diff)
	}
	if err := Check(d, adapter.Params{Env: in}); err != nil {
		t.Errorf("Check of no section = %v, want nil", err)
	}
	if diff := cmp.Diff(keys, []string{"enabled", "color"}); diff != "" {
		t.Errorf("settings keys: %s", diff)
	}
	if got := ScrubEnv(d, adapter.Env{"X=1", "Y=2"}); len(got) != 1 || got[0] != "Y=2" {
		t.Errorf("ScrubEnv = %v", got)
	}
	if a, err := plain.Open(ctx, adapter.Params{}); err != nil || a == nil {
		t.Error("DriverFunc.Open")
	}
}
