package herdr

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// TestPreviewSaysWhatOpenDoes: the setup Preview shows before Attach is
// the one the opened adapter shows in its Details, and the route it names
// for a server that speaks a known protocol, and for one whose socket does
// not answer, is the route the first report takes (none: the report
// fails).
func TestPreviewSaysWhatOpenDoes(t *testing.T) {
	tests := []struct {
		name       string
		settings   string
		unanswered bool // the socket does not answer
	}{
		{name: "auto", settings: `{}`},
		{name: "auto, socket unanswered", settings: `{}`, unanswered: true},
		{name: "socket", settings: `{"transport":"socket","timeout":"2s","refresh":0}`},
		{name: "socket, socket unanswered", settings: `{"transport":"socket"}`, unanswered: true},
		{name: "cli", settings: `{"transport":"cli","agent":"mychat","source":"custom:x"}`},
		{name: "cli, socket unanswered", settings: `{"transport":"cli"}`, unanswered: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, herdrtest.Options{})
			f.set = tt.settings
			p := f.params()
			if err := f.drv.Check(p); err != nil {
				t.Fatalf("Check = %v", err)
			}
			preview := f.drv.Preview(p)
			if preview["transport_protocols"] != "20 22" || preview["route"] == "" {
				t.Errorf("Preview = %v, want the protocols spoken and the route in a sentence", preview)
			}
			a := f.open(t)
			got := a.Details()
			for _, k := range []string{"source", "agent", "timeout", "refresh", "transport"} {
				if preview[k] != got[k] {
					t.Errorf("Preview %s = %q, the opened adapter's Details %q", k, preview[k], got[k])
				}
			}
			want := preview["route_speaks"]
			if tt.unanswered {
				f.setFault(t, herdrtest.Fault{SocketUnreachable: true})
				want = preview["route_otherwise"]
			}
			err := a.Report(t.Context(), working)
			if want == routeNone {
				if err == nil {
					t.Fatalf("Report = nil, want it to fail: Preview says route none (%s)", preview["route"])
				}
				return
			}
			if err != nil {
				t.Fatalf("Report = %v", err)
			}
			if diff := cmp.Diff(a.Details()["transport_used"], want); diff != "" {
				t.Errorf("transport_used (-got +want, Preview's route):\n%s", diff)
			}
		})
	}
}

// A section Open would refuse, or an app name it would refuse, gives no
// preview (the registry asks only after Check returned nil).
func TestPreviewOfABadSetupIsNil(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	for _, set := range []string{`{"transport":"pigeon"}`, `{"timeout":`} {
		f.set = set
		if got := f.drv.Preview(f.params()); got != nil {
			t.Errorf("Preview with %s = %v, want nil", set, got)
		}
	}
	f.set = ""
	p := f.params()
	p.App = "claude"
	if got := f.drv.Preview(p); got != nil {
		t.Errorf("Preview for app claude = %v, want nil", got)
	}
}
