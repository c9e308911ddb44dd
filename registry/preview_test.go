package registry

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/session"
)

// previewDriver is an adaptertest driver whose Preview shows what it read
// of its Params, or panics when told to.
type previewDriver struct {
	*adaptertest.Driver
	panics bool
}

func (d previewDriver) Preview(p adapter.Params) map[string]string {
	if d.panics {
		panic("preview panics")
	}
	return map[string]string{"route": "to " + p.App, "marker": p.Env.Get("MARKER")}
}

// Before Attach, Explain shows the setup the driver previews as the
// adapter's details, read from the Params Open would get; once the adapter
// is open, its own Details replace them. An adapter that does not apply, or
// a Preview that panics, shows none, and the panic is contained.
func TestExplainShowsThePreviewBeforeAttach(t *testing.T) {
	tests := []struct {
		name        string
		inactive    error
		panics      bool
		wantDetails map[string]string
		wantPanics  uint64
	}{
		{name: "applies", wantDetails: map[string]string{"route": "to paneapp", "marker": "m1"}},
		{name: "does not apply", inactive: errors.New("not here")},
		{name: "preview panics", panics: true, wantPanics: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := adaptertest.NewRecorder()
			d := adaptertest.NewDriver(rec)
			d.Inactive = tt.inactive
			opts := testOptions(t)
			opts.Env = []string{"MARKER=m1"}
			opts.Drivers = map[string]adapter.Driver{"rec": previewDriver{Driver: d, panics: tt.panics}}
			r := mustNew(t, opts)
			st := r.Explain().Adapters[0]
			if diff := cmp.Diff(st.Details, tt.wantDetails); diff != "" {
				t.Errorf("details before Attach (-got +want):\n%s", diff)
			}
			// The panic is counted as it happens: the next Explain shows it.
			if got := diagCount(r.Explain().Adapters[0], adapter.KindAdapterPanic); got != tt.wantPanics {
				t.Errorf("adapter_panic count %d, want %d", got, tt.wantPanics)
			}
			if tt.inactive != nil || tt.panics {
				return
			}
			if err := r.Attach(t.Context(), session.NewStore()); err != nil {
				t.Fatal(err)
			}
			st = r.Explain().Adapters[0]
			if _, ok := st.Details["route"]; ok || st.Details["calls"] == "" {
				t.Errorf("details once open = %v, want the Recorder's own, not the preview", st.Details)
			}
		})
	}
}
