package herdr

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/session"
)

func TestOpenGating(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	dir := t.TempDir()
	notExec := filepath.Join(dir, "herdr-noexec")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := func(key, value string) func(adapter.Env) adapter.Env {
		return func(e adapter.Env) adapter.Env { return e.With(key, value) }
	}
	unset := func(key string) func(adapter.Env) adapter.Env {
		return func(e adapter.Env) adapter.Env { return e.Without(func(k string) bool { return k == key }) }
	}
	tests := []struct {
		name string
		env  func(adapter.Env) adapter.Env
		host session.Host
		want string // a fragment of the error
	}{
		{name: "HERDR_ENV unset", env: unset(EnvMarker), want: "HERDR_ENV is not set"},
		{name: "HERDR_ENV 0", env: set(EnvMarker, "0"), want: `HERDR_ENV is "0", not "1"`},
		{name: "HERDR_ENV true", env: set(EnvMarker, "true"), want: `HERDR_ENV is "true"`},
		{name: "HERDR_ENV padded", env: set(EnvMarker, " 1"), want: `HERDR_ENV is " 1"`},
		{name: "HERDR_BIN_PATH unset", env: unset(EnvBin), want: "HERDR_BIN_PATH is empty or unset"},
		{name: "HERDR_BIN_PATH empty", env: set(EnvBin, ""), want: "HERDR_BIN_PATH is empty or unset"},
		{name: "HERDR_PANE_ID unset", env: unset(EnvPane), want: "HERDR_PANE_ID is empty or unset"},
		{name: "HERDR_SOCKET_PATH unset", env: unset(EnvSocket), want: "HERDR_SOCKET_PATH is empty or unset"},
		{name: "only HERDR_ENV set names all three", env: func(e adapter.Env) adapter.Env { return adapter.Env{EnvMarker + "=1"} },
			want: "herdr: adapter inactive: HERDR_BIN_PATH, HERDR_PANE_ID and HERDR_SOCKET_PATH are empty or unset"},
		{name: "two missing named together", env: func(e adapter.Env) adapter.Env { return unset(EnvSocket)(unset(EnvPane)(e)) },
			want: "HERDR_PANE_ID and HERDR_SOCKET_PATH are empty or unset"},
		{name: "bin missing", env: set(EnvBin, filepath.Join(dir, "nope")), want: "HERDR_BIN_PATH"},
		{name: "bin relative", env: set(EnvBin, "herdr"), want: `HERDR_BIN_PATH "herdr" is not an absolute path`},
		{name: "bin relative to the directory", env: set(EnvBin, filepath.Join(".", "bin", "herdr")), want: "is not an absolute path"},
		{name: "bin is a directory", env: set(EnvBin, dir), want: "not a regular file"},
		{name: "pane id hijacked", env: set(EnvPane, "--session"), want: "HERDR_PANE_ID"},
		{name: "pane id help", env: set(EnvPane, "--help"), want: "HERDR_PANE_ID"},
		{name: "pane id control", env: set(EnvPane, "w1:p1\n"), want: "control characters"},
		{name: "pane id not UTF-8", env: set(EnvPane, "w1:\xff"), want: "not valid UTF-8"},
		{name: "not interactive", host: session.Host{Root: true}, want: "the host is not interactive"},
		{name: "subagent", host: session.Host{Interactive: true}, want: "the host is not the root session"},
		{name: "zero host", host: session.Host{}, want: "the host is not interactive"},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			name string
			env  func(adapter.Env) adapter.Env
			host session.Host
			want string
		}{name: "bin not executable", env: set(EnvBin, notExec), want: "not executable"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &diags{}
			p := f.params()
			p.Diagnose = d.add
			if tt.env != nil {
				p.Env = tt.env(p.Env)
			}
			if tt.env == nil {
				p.Host = tt.host
			}
			cerr := f.drv.Check(p)
			a, err := f.drv.Open(t.Context(), p)
			if !errors.Is(err, adapter.ErrInactive) {
				t.Fatalf("Open = %v, %v; want an error wrapping ErrInactive", a, err)
			}
			if cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("Check = %v, want the same error as Open (%v)", cerr, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if got := d.all(); len(got) != 0 {
				t.Errorf("diagnostics %v, want none", got)
			}
		})
	}
	if calls := f.calls(t); len(calls) != 0 {
		t.Errorf("inactive opens ran %d calls", len(calls))
	}
	if entries, _ := os.ReadDir(f.drv.StateDir); len(entries) != 0 {
		t.Errorf("inactive opens wrote %d files", len(entries))
	}
}

func TestOpenConflicts(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	tests := []struct {
		name      string
		conflicts []string
		loaded    []string
		deferTo   string // "" means active
	}{
		{name: "atomic reporter loaded", loaded: []string{"/x/ext/a.ts", "/home/u/.atomic/extensions/herdr-atomic-reporter/index.ts"}, deferTo: "/home/u/.atomic/extensions/herdr-atomic-reporter/index.ts"},
		{name: "pi extension loaded", loaded: []string{"/home/u/.pi/agent/extensions/herdr-agent-state.ts"}, deferTo: "/home/u/.pi/agent/extensions/herdr-agent-state.ts"},
		{name: "other extensions only", loaded: []string{"/x/ext/herdr-tools.ts"}},
		{name: "nothing loaded"},
		{name: "custom list", conflicts: []string{"my-reporter"}, loaded: []string{"/ext/my-reporter.js", "/ext/herdr-agent-state.ts"}, deferTo: "/ext/my-reporter.js"},
		{name: "empty list disables", conflicts: []string{}, loaded: []string{"/ext/herdr-agent-state.ts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &diags{}
			p := f.params()
			p.Diagnose = d.add
			p.Host.LoadedExtensions = tt.loaded
			drv := f.drv
			drv.Conflicts = tt.conflicts
			cerr := drv.Check(p)
			if got := d.all(); len(got) != 0 {
				t.Errorf("Check emitted diagnostics %v, want none", got)
			}
			if (cerr == nil) != (tt.deferTo == "") {
				t.Errorf("Check = %v, want an error iff deferring", cerr)
			}
			a, err := drv.Open(t.Context(), p)
			if tt.deferTo == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				optional.Close(t.Context(), a)
				if got := d.all(); len(got) != 0 {
					t.Errorf("diagnostics %v, want none", got)
				}
				return
			}
			if !errors.Is(err, adapter.ErrInactive) || !strings.Contains(err.Error(), tt.deferTo) {
				t.Fatalf("Open error %v, want ErrInactive naming %s", err, tt.deferTo)
			}
			got := d.all()
			if len(got) != 1 || got[0].Kind != adapter.KindUnsupported || !strings.Contains(got[0].Detail, tt.deferTo) {
				t.Errorf("diagnostics %v, want one unsupported naming %s", got, tt.deferTo)
			}
		})
	}
}

func TestOpenIdentity(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	tests := []struct {
		name     string
		app      string
		settings string
		source   string // want, when valid
		agent    string
		bad      string // a fragment of the error, when invalid
	}{
		{name: "defaults", app: "atomic", source: "custom:atomic", agent: "atomic"},
		{name: "settings", app: "atomic", settings: `{"enabled":true,"source":"custom:mine","agent":"Mine Agent"}`, source: "custom:mine", agent: "Mine Agent"},
		{name: "null values keep defaults", app: "atomic", settings: `{"source":null,"agent":null,"timeout":null}`, source: "custom:atomic", agent: "atomic"},
		{name: "source with space", app: "atomic", settings: `{"source":"custom:my agent"}`, bad: "1 to 80 characters"},
		{name: "source empty", app: "atomic", settings: `{"source":""}`, bad: "1 to 80 characters"},
		{name: "source too long", app: "atomic", settings: `{"source":"custom:` + strings.Repeat("x", 75) + `"}`, bad: "1 to 80 characters"},
		{name: "source 80 chars", app: "atomic", settings: `{"source":"custom:` + strings.Repeat("x", 73) + `"}`, source: "custom:" + strings.Repeat("x", 73), agent: "atomic"},
		{name: "source herdr namespace", app: "atomic", settings: `{"source":"herdr:pi"}`, bad: "reserved herdr: namespace"},
		{name: "source herdr custom", app: "atomic", settings: `{"source":"herdr:atomic"}`, bad: "reserved"},
		{name: "source hijacked", app: "atomic", settings: `{"source":"--session"}`, bad: "global option"},
		{name: "source hijacked with value", app: "atomic", settings: `{"source":"--remote=x"}`, bad: "1 to 80 characters"},
		{name: "default source from bad app", app: "my app", bad: "1 to 80 characters"},
		{name: "label empty", app: "", settings: `{"source":"custom:x"}`, bad: "agent label is empty"},
		{name: "label blank", app: "atomic", settings: `{"agent":"   "}`, bad: "agent label is empty"},
		{name: "label claude", app: "claude", bad: `built-in agent "claude"`},
		{name: "label Claude-Code", app: "atomic", settings: `{"agent":"Claude-Code"}`, bad: `built-in agent "claude"`},
		{name: "label CODEX.exe", app: "atomic", settings: `{"agent":" CODEX.exe "}`, bad: `built-in agent "codex"`},
		{name: "label kilo code", app: "atomic", settings: `{"agent":"Kilo Code"}`, bad: `built-in agent "kilo"`},
		{name: "label amp-local", app: "atomic", settings: `{"agent":"AMP-LOCAL"}`, bad: `built-in agent "amp"`},
		{name: "label qoder", app: "atomic", settings: `{"agent":"qoder"}`, bad: `built-in agent "qodercli"`},
		{name: "label antigravity", app: "atomic", settings: `{"agent":"antigravity"}`, bad: `built-in agent "agy"`},
		{name: "label cursor-agent.cmd", app: "atomic", settings: `{"agent":"cursor-agent.cmd"}`, bad: `built-in agent "cursor"`},
		{name: "label path to pi", app: "atomic", settings: `{"agent":"/usr/local/bin/pi"}`, bad: `built-in agent "pi"`},
		{name: "label muse build", app: "atomic", settings: `{"agent":"muse-bin-0.1.0"}`, bad: `built-in agent "muse"`},
		{name: "label opencode.js", app: "atomic", settings: `{"agent":"opencode.js"}`, bad: `built-in agent "opencode"`},
		{name: "label close to builtin", app: "atomic", settings: `{"agent":"claudette"}`, source: "custom:atomic", agent: "claudette"},
		{name: "label control char", app: "atomic", settings: `{"agent":"a\u0007b"}`, bad: "control characters"},
		{name: "label right-to-left override", app: "atomic", settings: `{"agent":"chat\u202Eexe.txt"}`, bad: "invisible or bidirectional character U+202E"},
		{name: "label zero-width space", app: "atomic", settings: `{"agent":"cla\u200Bude"}`, bad: "U+200B"},
		{name: "label left-to-right isolate", app: "atomic", settings: `{"agent":"\u2066chat\u2069"}`, bad: "U+2066"},
		{name: "label byte order mark", app: "atomic", settings: `{"agent":"\uFEFFchat"}`, bad: "U+FEFF"},
		{name: "label zero-width joiner", app: "atomic", settings: `{"agent":"ch\u200Dat"}`, bad: "U+200D"},
		{name: "label hangul filler", app: "atomic", settings: `{"agent":"chat\u3164"}`, bad: "U+3164"},
		{name: "label variation selector", app: "atomic", settings: `{"agent":"chat\uFE0F"}`, bad: "U+FE0F"},
		{name: "label no-break space", app: "atomic", settings: `{"agent":"my\u00A0chat"}`, bad: "U+00A0"},
		{name: "label line separator", app: "atomic", settings: `{"agent":"my\u2028chat"}`, bad: "U+2028"},
		{name: "app name with an override", app: "chat\u202Eexe", settings: `{"source":"custom:x"}`, bad: "U+202E"},
		{name: "label accented and CJK", app: "atomic", settings: `{"agent":"Café 助手"}`, source: "custom:atomic", agent: "Café 助手"},
		{name: "label not UTF-8", app: "a\xffb", settings: `{"source":"custom:x"}`, bad: "not valid UTF-8"},
		{name: "label hijacked", app: "atomic", settings: `{"agent":"--handoff"}`, bad: "global option"},
		{name: "label hijacked with value", app: "atomic", settings: `{"agent":"--session=main"}`, bad: "global option"},
		{name: "settings not an object", app: "atomic", settings: `[1]`, bad: "herdr: settings"},
		{name: "source not a string", app: "atomic", settings: `{"source":5}`, bad: "herdr: settings"},
		{name: "transport unknown", app: "atomic", settings: `{"transport":"pipe"}`, bad: `transport "pipe" is not auto, socket or cli`},
		{name: "transport not a string", app: "atomic", settings: `{"transport":1}`, bad: "herdr: settings"},
		{name: "transport cli", app: "atomic", settings: `{"transport":"cli"}`, source: "custom:atomic", agent: "atomic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := f.params()
			p.App = tt.app
			p.Settings = []byte(tt.settings)
			a, err := f.drv.open(t.Context(), p)
			if tt.bad != "" {
				if err == nil {
					a.Close(t.Context())
					t.Fatalf("Open succeeded; want an error saying %q", tt.bad)
				}
				if errors.Is(err, adapter.ErrInactive) || !strings.Contains(err.Error(), tt.bad) {
					t.Fatalf("Open error %q; want a plain error saying %q", err, tt.bad)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer a.Close(t.Context())
			if a.source != tt.source || a.label != tt.agent {
				t.Errorf("source, agent = %q, %q; want %q, %q", a.source, a.label, tt.source, tt.agent)
			}
		})
	}
}

func TestOpenTimeout(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	tests := []struct {
		name    string
		setting string
		want    time.Duration
		clamped bool
		bad     bool
	}{
		{name: "default", setting: ``, want: DefaultTimeout},
		{name: "null", setting: `null`, want: DefaultTimeout},
		{name: "duration", setting: `"2s"`, want: 2 * time.Second},
		{name: "milliseconds", setting: `1500`, want: 1500 * time.Millisecond},
		{name: "fractional milliseconds", setting: `250.5`, want: 250500 * time.Microsecond},
		{name: "too short", setting: `"10ms"`, want: MinTimeout, clamped: true},
		{name: "zero", setting: `0`, want: MinTimeout, clamped: true},
		{name: "negative", setting: `-5`, want: MinTimeout, clamped: true},
		{name: "too long", setting: `"2m"`, want: MaxTimeout, clamped: true},
		{name: "huge number", setting: `1e300`, want: MaxTimeout, clamped: true},
		{name: "not a duration", setting: `"soon"`, bad: true},
		{name: "bool", setting: `true`, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &diags{}
			p := f.params()
			p.Diagnose = d.add
			if tt.setting != "" {
				p.Settings = []byte(`{"timeout":` + tt.setting + `}`)
			}
			a, err := f.drv.open(t.Context(), p)
			if tt.bad {
				if err == nil || errors.Is(err, adapter.ErrInactive) || !strings.Contains(err.Error(), "timeout") {
					t.Fatalf("Open error %v; want a plain error about the timeout", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer a.Close(t.Context())
			if a.timeout != tt.want {
				t.Errorf("timeout %v, want %v", a.timeout, tt.want)
			}
			want := map[adapter.Kind]int{}
			if tt.clamped {
				want[adapter.KindInvalidValue] = 1
			}
			if diff := cmp.Diff(d.kinds(), want); diff != "" {
				t.Errorf("diagnostics (-got +want):\n%s", diff)
			}
		})
	}
}

func TestDriverMetadata(t *testing.T) {
	var d Driver
	def, keys := optional.Settings(d)
	if !def {
		t.Error("enabled by default = false")
	}
	if diff := cmp.Diff(keys, []string{"enabled", "source", "agent", "timeout", "refresh", "transport"}); diff != "" {
		t.Errorf("settings keys (-got +want):\n%s", diff)
	}
	env := adapter.Env{"PATH=/bin", "HERDR_ENV=1", "HERDR_PANE_ID=w1:p1", "herdr_socket_path=x", "HOME=/h", "HERDR_=", "HERD=1"}
	want := adapter.Env{"PATH=/bin", "HOME=/h", "HERD=1"}
	if diff := cmp.Diff(optional.ScrubEnv(d, env), want); diff != "" {
		t.Errorf("ScrubEnv (-got +want):\n%s", diff)
	}
}

func TestDefaultStateDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix layout")
	}
	tests := []struct {
		name string
		env  adapter.Env
		want string
	}{
		{name: "xdg", env: adapter.Env{"XDG_STATE_HOME=/s", "HOME=/h"}, want: "/s/panestate/herdr"},
		{name: "relative xdg ignored", env: adapter.Env{"XDG_STATE_HOME=s", "HOME=/h"}, want: "/h/.local/state/panestate/herdr"},
		{name: "home", env: adapter.Env{"HOME=/h"}, want: "/h/.local/state/panestate/herdr"},
		{name: "nothing", env: nil, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := defaultStateDir(tt.env); got != tt.want {
				t.Errorf("defaultStateDir = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCheckSettings proves Check returns exactly the error Open
// returns for the same section inside a pane, naming the key, and nil for a
// good section (clamped values included).
func TestCheckSettings(t *testing.T) {
	f := newFixture(t, herdrtest.Options{})
	tests := []struct {
		name    string
		section string
		key     string // named by the error; "" = valid
	}{
		{name: "none", section: ``},
		{name: "empty object", section: `{}`},
		{name: "good", section: `{"source":"custom:x","agent":"x","timeout":"2s","refresh":0,"transport":"cli"}`},
		{name: "clamped timeout is valid", section: `{"timeout":"10ms"}`},
		{name: "timeout not a duration", section: `{"timeout":"nope"}`, key: "timeout"},
		{name: "refresh not a duration", section: `{"refresh":true}`, key: "refresh"},
		{name: "unknown transport", section: `{"transport":"pigeon"}`, key: "transport"},
		{name: "bad source", section: `{"source":"herdr:x"}`, key: "source"},
		{name: "empty agent", section: `{"agent":""}`, key: "agent"},
		{name: "not an object", section: `[1]`, key: "settings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var section json.RawMessage
			if tt.section != "" {
				section = json.RawMessage(tt.section)
			}
			p := f.params()
			p.Settings = section
			err := f.drv.Check(p)
			a, openErr := f.drv.open(t.Context(), p)
			if openErr == nil {
				a.Close(t.Context())
			}
			if tt.key == "" {
				if err != nil || openErr != nil {
					t.Fatalf("Check = %v, Open = %v; want both nil", err, openErr)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.key) {
				t.Fatalf("Check = %v, want an error naming %q", err, tt.key)
			}
			if openErr == nil || openErr.Error() != err.Error() {
				t.Errorf("Open = %v, want the same error as Check", openErr)
			}
		})
	}
}
