package registry

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/session"
)

// unsafeRunes are what a terminal must never be handed from outside text:
// ESC and BEL start and end escape sequences (a title, a hyperlink, a
// colour), C1's CSI is ESC [ in one byte, and the bidirectional controls
// reorder what is shown.
const unsafeRunes = "\x1b\x07\u009b\u202e\u2066\u200f\u061c"

// Explanation.String prints the strings it takes from outside (a settings
// key name, TERM_PROGRAM through the terminal adapter's details) without a
// control or bidirectional character, and still prints them.
func TestExplainStringPrintsOnlySafeText(t *testing.T) {
	const planted = "\x1b]0;pwned\x07\u009b2J\u202eevil\u2066\u200f\u061c"
	opts := testOptions(t, "terminal")
	opts.Env = []string{"TERM_PROGRAM=" + planted}
	opts.Terminal = io.Discard
	r := mustNew(t, opts)
	// A key the settings do not know, named with the same bytes (JSON
	// escapes), and terminal forced on so that it runs and shows its
	// details.
	writeSettings(t, r, `{"terminal": {"enabled": true, "x\u001b]0;keyname\u0007\u202e": 1}}`)
	for _, when := range []string{"before Attach", "attached"} {
		if when == "attached" {
			if err := r.Attach(t.Context(), session.NewStore()); err != nil {
				t.Fatal(err)
			}
		}
		got := r.Explain().String()
		if i := strings.IndexAny(got, unsafeRunes); i >= 0 {
			t.Errorf("%s: String() has an unsafe character at byte %d:\n%q", when, i, got)
		}
		// Not vacuous: the planted texts are shown, cleaned.
		for _, want := range []string{"keyname", "pwned"} {
			if when == "before Attach" && want == "pwned" {
				continue // the terminal's details exist once it runs
			}
			if !strings.Contains(got, want) {
				t.Errorf("%s: String() does not show %q:\n%s", when, want, got)
			}
		}
	}
}

// A driver's preview (adapter.Previewer) is outside text too: String prints
// its values cleaned (adapter names are checked by New).
func TestExplainStringPrintsThePreviewSafely(t *testing.T) {
	const planted = "\x1b]0;pwned\x07\u009b2J\u202eevil\u2066\u200f\u061c"
	opts := testOptions(t)
	opts.Env = []string{"MARKER=" + planted}
	opts.Drivers = map[string]adapter.Driver{"rec": previewDriver{Driver: adaptertest.NewDriver(adaptertest.NewRecorder())}}
	r := mustNew(t, opts)
	got := r.Explain().String()
	if i := strings.IndexAny(got, unsafeRunes); i >= 0 {
		t.Errorf("String() has an unsafe character at byte %d:\n%q", i, got)
	}
	// Not vacuous: the preview is shown, cleaned.
	for _, want := range []string{"  marker:  ]0;pwned  2J evil   \n"} {
		if !strings.Contains(got, want) {
			t.Errorf("String() does not show %q:\n%s", want, got)
		}
	}
}

// Explain's JSON, as a host prints it with encoding/json, escapes every
// unsafe character of the outside strings it holds (the host's identity and
// loaded extensions, an adapter's details), C1 and bidirectional controls
// included, which encoding/json alone leaves raw; decoded, it is the same
// value.
func TestExplainJSONIsSafeToPrint(t *testing.T) {
	const planted = "\x1b]0;pwned\x07\u009b2J\u202eevil\u2066\u200f\u061c"
	opts := testOptions(t)
	opts.Env = []string{"MARKER=" + planted}
	opts.Drivers = map[string]adapter.Driver{"rec": previewDriver{Driver: adaptertest.NewDriver(adaptertest.NewRecorder())}}
	id, err := session.Identity{ID: "id" + planted, Path: "/p" + planted}.WithResume("mychat", "--resume", planted)
	if err != nil {
		t.Fatal(err)
	}
	opts.Host = session.Host{Interactive: true, Root: true, Identity: id, LoadedExtensions: []string{"/ext" + planted}}
	r := mustNew(t, opts)
	e := r.Explain()
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexAny(string(data), unsafeRunes); i >= 0 {
		t.Errorf("JSON has an unsafe character at byte %d:\n%q", i, data)
	}
	// Not vacuous, and the same value: every planted string comes back.
	var back struct {
		Host struct {
			Identity struct {
				ID, Path string
				Resume   []string
			}
			LoadedExtensions []string `json:"loaded_extensions"`
		}
		Adapters []struct{ Details map[string]string }
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	got := []string{back.Host.Identity.ID, back.Host.Identity.Path, back.Host.Identity.Resume[2], back.Host.LoadedExtensions[0], back.Adapters[0].Details["marker"]}
	want := []string{"id" + planted, "/p" + planted, planted, "/ext" + planted, planted}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("decoded strings (-got +want):\n%s", diff)
	}
}
