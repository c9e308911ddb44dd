package settingsengine

import (
	"github.com/panestate/panestate/settings"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadMergeAndTypes(t *testing.T) {
	type enabled struct {
		On   bool
		From Layer
	}
	tests := []struct {
		name         string
		global       string // "" = no file
		project      string
		untrusted    bool
		wantHerdr    enabled // Enabled("herdr", true)
		wantNoop     enabled // Enabled("noop", false)
		wantSection  string
		wantWarnings []string // "layer key"
		wantErr      bool
	}{
		{name: "no files", wantHerdr: enabled{true, LayerDefault}},
		{name: "global disables", global: `{"herdr":{"enabled":false}}`, wantHerdr: enabled{false, LayerGlobal}},
		{name: "project overrides global", global: `{"herdr":{"enabled":false}}`, project: `{"herdr":{"enabled":true}}`, wantHerdr: enabled{true, LayerProject}},
		{name: "project null falls through", global: `{"herdr":{"enabled":false}}`, project: `{"herdr":{"enabled":null}}`, wantHerdr: enabled{false, LayerGlobal}},
		{name: "project section null falls through", global: `{"herdr":{"enabled":false,"agent":"g"}}`, project: `{"herdr":null}`, wantHerdr: enabled{false, LayerGlobal}, wantSection: `{"agent":"g"}`},
		{name: "string yes is ignored", global: `{"herdr":{"enabled":false}}`, project: `{"herdr":{"enabled":"yes"}}`, wantHerdr: enabled{false, LayerGlobal}, wantWarnings: []string{"project herdr.enabled"}},
		{name: "string false is ignored", project: `{"herdr":{"enabled":"false"}}`, wantHerdr: enabled{true, LayerDefault}, wantWarnings: []string{"project herdr.enabled"}},
		{name: "zero is ignored", global: `{"herdr":{"enabled":0}}`, wantHerdr: enabled{true, LayerDefault}, wantWarnings: []string{"global herdr.enabled"}},
		{name: "section as scalar is ignored", global: `{"herdr":{"enabled":false,"agent":"g"}}`, project: `{"herdr":true}`, wantHerdr: enabled{false, LayerGlobal}, wantSection: `{"agent":"g"}`, wantWarnings: []string{"project herdr"}},
		{name: "section as array is ignored", global: `{"herdr":[false]}`, wantHerdr: enabled{true, LayerDefault}, wantWarnings: []string{"global herdr"}},
		{name: "untrusted project is not read", global: `{"herdr":{"enabled":false}}`, project: `{"herdr":{"enabled":true}}`, untrusted: true, wantHerdr: enabled{false, LayerGlobal}},
		{name: "untrusted malformed project is not read", project: `{oops`, untrusted: true, wantHerdr: enabled{true, LayerDefault}},
		{name: "other top-level keys are ignored silently", global: `{"theme":"dark","herdr.enabled":false,"Herdr":{"enabled":false},"defaultProjectTrust":"always"}`, wantHerdr: enabled{true, LayerDefault}},
		{name: "unknown key in owned section", global: `{"herdr":{"colour":"red","agent":"a"}}`, wantHerdr: enabled{true, LayerDefault}, wantSection: `{"agent":"a"}`, wantWarnings: []string{"global herdr.colour"}},
		{name: "noop has no keys besides enabled", global: `{"noop":{"enabled":true,"x":1}}`, wantHerdr: enabled{true, LayerDefault}, wantNoop: enabled{true, LayerGlobal}, wantWarnings: []string{"global noop.x"}},
		{name: "maps merge recursively", global: `{"herdr":{"timeout":"5s","source":{"a":1,"b":2}}}`, project: `{"herdr":{"source":{"b":3}}}`, wantHerdr: enabled{true, LayerDefault}, wantSection: `{"source":{"a":1,"b":3},"timeout":"5s"}`},
		{name: "arrays replace", global: `{"herdr":{"agent":[1,2]}}`, project: `{"herdr":{"agent":[3]}}`, wantHerdr: enabled{true, LayerDefault}, wantSection: `{"agent":[3]}`},
		{name: "scalar replaces map", global: `{"herdr":{"source":{"a":1}}}`, project: `{"herdr":{"source":"x"}}`, wantHerdr: enabled{true, LayerDefault}, wantSection: `{"source":"x"}`},
		{name: "null key keeps lower value", global: `{"herdr":{"timeout":"5s"}}`, project: `{"herdr":{"timeout":null,"agent":"p"}}`, wantHerdr: enabled{true, LayerDefault}, wantSection: `{"agent":"p","timeout":"5s"}`},
		{name: "numbers keep their text", global: `{"herdr":{"timeout":12345678901234567890.50}}`, wantHerdr: enabled{true, LayerDefault}, wantSection: `{"timeout":12345678901234567890.50}`},
		{name: "canonical key order and no html escaping", global: `{"herdr":{"source":"<a&b>","agent":"x"}}`, wantHerdr: enabled{true, LayerDefault}, wantSection: `{"agent":"x","source":"<a&b>"}`},
		{name: "utf-8 bom", global: "\ufeff" + `{"herdr":{"enabled":false}}`, wantHerdr: enabled{false, LayerGlobal}},
		{name: "empty file is an empty layer", global: ``, project: `{"herdr":{"enabled":false}}`, wantHerdr: enabled{false, LayerProject}},
		{name: "malformed global is empty, project applies", global: `{"herdr":{"enabled":false,}}`, project: `{"herdr":{"agent":"p"}}`, wantHerdr: enabled{true, LayerDefault}, wantSection: `{"agent":"p"}`, wantErr: true},
		{name: "top-level array", global: `[{"herdr":{"enabled":false}}]`, wantHerdr: enabled{true, LayerDefault}, wantErr: true},
		{name: "top-level null", global: `null`, wantHerdr: enabled{true, LayerDefault}, wantErr: true},
		{name: "comments are not JSON", global: "{\n// no\n}", wantHerdr: enabled{true, LayerDefault}, wantErr: true},
		{name: "trailing data", global: `{} {}`, wantHerdr: enabled{true, LayerDefault}, wantErr: true},
		{name: "whitespace only", global: " \n", wantHerdr: enabled{true, LayerDefault}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.global != "" || strings.Contains(tc.name, "empty file") {
				write(t, f.global, tc.global)
			}
			if tc.project != "" {
				write(t, f.project, tc.project)
			}
			if tc.untrusted {
				f.opts.Trust = nil
			}
			s, err := Load(f.opts)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			on, from := s.Enabled("herdr", true)
			if diff := cmp.Diff(enabled{on, from}, tc.wantHerdr); diff != "" {
				t.Errorf("herdr enabled (-got +want):\n%s", diff)
			}
			on, from = s.Enabled("noop", false)
			wantNoop := tc.wantNoop
			if wantNoop.From == "" {
				wantNoop.From = LayerDefault // no layer decides: the default, off
			}
			if diff := cmp.Diff(enabled{on, from}, wantNoop); diff != "" {
				t.Errorf("noop enabled (-got +want):\n%s", diff)
			}
			if diff := cmp.Diff(string(s.Section("herdr")), tc.wantSection); diff != "" {
				t.Errorf("section (-got +want):\n%s", diff)
			}
			var got []string
			for _, w := range s.Warnings() {
				layer := "global"
				if w.File == f.project {
					layer = "project"
				}
				got = append(got, layer+" "+w.Key)
			}
			if diff := cmp.Diff(got, tc.wantWarnings); diff != "" {
				t.Errorf("warnings (-got +want):\n%s", diff)
			}
		})
	}
}

func TestLoadZeroSettingsIsDefault(t *testing.T) {
	var s Settings
	if on, from := s.Enabled("herdr", true); !on || from != LayerDefault {
		t.Errorf("zero Settings: herdr %v from %v", on, from)
	}
	if s.Section("herdr") != nil || s.Warnings() != nil || s.Files() != nil || !s.Equal(Settings{}) {
		t.Errorf("zero Settings is not empty")
	}
}

func TestLoadParseErrorPosition(t *testing.T) {
	tests := []struct {
		name, content  string
		line, col      int
		messageContain string
	}{
		{name: "missing value", content: "{\n  \"herdr\": {\n    \"enabled\": ,\n  }\n}", line: 3, col: 16, messageContain: "invalid character ','"},
		{name: "bom shifts nothing", content: "\ufeff{\"a\": x}", line: 1, col: 7, messageContain: "invalid character 'x'"},
		{name: "non-ascii column counts characters", content: "{\"é\": ü}", line: 1, col: 7, messageContain: "invalid character"},
		{name: "truncated points just past the end", content: "{\"herdr\":", line: 1, col: 10, messageContain: "unexpected end"},
		{name: "truncated before a final newline", content: "{\"herdr\":\n", line: 2, col: 1, messageContain: "unexpected end"},
		{name: "only white space", content: " \n ", line: 2, col: 2, messageContain: "no JSON value"},
		{name: "array", content: "\n [1]", line: 2, col: 2, messageContain: "must be a JSON object, got array"},
		{name: "line comment after the value", content: `{"herdr":{"enabled":false}} // c`, line: 1, col: 29, messageContain: "comments are not allowed in JSON"},
		{name: "block comment inside the object", content: "{\"a\":1,\n  /* x */ \"b\":2}", line: 2, col: 3, messageContain: "comments are not allowed in JSON"},
		{name: "comment before the value", content: "// c\n{}", line: 1, col: 1, messageContain: "comments are not allowed in JSON"},
		{name: "data after the value", content: "{}  x", line: 1, col: 5, messageContain: "unexpected data after the top-level value"},
		{name: "second value after a bom", content: "\ufeff{}{}", line: 1, col: 3, messageContain: "unexpected data after the top-level value"},
		{name: "lone slash is not a comment", content: `{"a":/}`, line: 1, col: 6, messageContain: "invalid character '/'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			write(t, f.global, tc.content)
			_, err := Load(f.opts)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FileError", err)
			}
			if fe.Path != f.global || fe.Line != tc.line || fe.Column != tc.col || !errors.Is(err, ErrSyntax) {
				t.Errorf("got %s:%d:%d (%v), want line %d column %d", fe.Path, fe.Line, fe.Column, err, tc.line, tc.col)
			}
			if !strings.Contains(err.Error(), tc.messageContain) || !strings.Contains(err.Error(), fmt.Sprintf("%s:%d:%d: ", f.global, tc.line, tc.col)) {
				t.Errorf("message %q", err)
			}
		})
	}
}

func TestLoadSizeCap(t *testing.T) {
	f := newFixture(t)
	big := `{"herdr":{"enabled":false},"pad":"` + strings.Repeat("x", MaxFileSize) + `"}`
	write(t, f.global, big)
	s, err := Load(f.opts)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if fs := s.Files()[0]; fs.Condition != ConditionTooLarge || !strings.Contains(fs.Err, "1 MiB") {
		t.Errorf("file status %+v", fs)
	}
	if on, _ := s.Enabled("herdr", true); !on {
		t.Errorf("a refused file must be an empty layer")
	}
	write(t, f.global, `{"herdr":{"enabled":false},"pad":"`+strings.Repeat("x", MaxFileSize-100)+`"}`)
	if _, err := Load(f.opts); err != nil {
		t.Errorf("a file just under the cap: %v", err)
	}
}

func TestLoadTrust(t *testing.T) {
	tests := []struct {
		name        string
		trust       func(string) (bool, error)
		trustFile   string // content; "" = none configured
		wantTrusted bool
		wantReason  string
		wantErr     string
	}{
		{name: "no trust function", wantReason: "no trust function"},
		{name: "trust function says yes", trust: func(string) (bool, error) { return true, nil }, wantTrusted: true, wantReason: "trusts the project"},
		{name: "trust function says no", trust: func(string) (bool, error) { return false, nil }, wantReason: "does not trust"},
		{name: "trust function fails", trust: func(string) (bool, error) { return true, errors.New("keychain locked") }, wantReason: "failed", wantErr: "keychain locked"},
		{name: "trust store trusts", trustFile: `{"PROJ": true}`, wantTrusted: true, wantReason: "is trusted"},
		{name: "trust store malformed", trustFile: `{"PROJ": true`, wantReason: "cannot be read", wantErr: "unexpected end"},
		{name: "trust function wins over the store", trust: func(string) (bool, error) { return false, nil }, trustFile: `{"PROJ": true}`, wantReason: "does not trust"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.opts.Trust = tc.trust
			if tc.trustFile != "" {
				f.opts.TrustFile = settings.DefaultTrustFile(f.home, "app")
				write(t, f.opts.TrustFile, strings.ReplaceAll(tc.trustFile, "PROJ", f.proj))
			}
			write(t, f.project, `{"herdr":{"enabled":false}}`)
			s, _ := Load(f.opts)
			fs := s.Files()[1]
			if trusted(fs) != tc.wantTrusted || !strings.Contains(fs.TrustReason, tc.wantReason) || !strings.Contains(fs.Err, tc.wantErr) {
				t.Errorf("status %+v", fs)
			}
			if on, _ := s.Enabled("herdr", true); on == tc.wantTrusted {
				t.Errorf("project layer applied = %v, want %v", !on, tc.wantTrusted)
			}
			if !tc.wantTrusted && fs.Condition != ConditionUntrusted {
				t.Errorf("condition %v, want untrusted", fs.Condition)
			}
			// The trust store is listed when it decides.
			if decides := tc.trust == nil && tc.trustFile != ""; decides != (len(s.Files()) == 3) {
				t.Fatalf("files %+v: trust store listed = %v, want %v", s.Files(), !decides, decides)
			} else if decides {
				ts := s.Files()[2]
				if !ts.TrustStore || ts.Path != f.opts.TrustFile || ts.Layer != "" || ts.Stale || (ts.Err != "") != (tc.wantErr != "") {
					t.Errorf("trust store status %+v", ts)
				}
			}
			for _, fs := range s.Files()[:2] {
				if fs.TrustStore {
					t.Errorf("settings file marked as the trust store: %+v", fs)
				}
			}
		})
	}
}

func TestTrustStoreDecisions(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	ab := filepath.Join(a, "b")
	abc := filepath.Join(ab, "c")
	if err := os.MkdirAll(abc, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	ra, rab := filepath.Join(real, "a"), filepath.Join(real, "a", "b")
	tests := []struct {
		name  string
		store map[string]any
		root  string
		want  bool
	}{
		{name: "exact entry", store: map[string]any{rab: true}, root: ab, want: true},
		{name: "ancestor entry", store: map[string]any{ra: true}, root: abc, want: true},
		{name: "nearest ancestor wins (deny)", store: map[string]any{ra: true, rab: false}, root: abc, want: false},
		{name: "nearest ancestor wins (allow)", store: map[string]any{ra: false, rab: true}, root: abc, want: true},
		{name: "ask is untrusted", store: map[string]any{ra: true, rab: "ask"}, root: ab, want: false},
		{name: "null is skipped", store: map[string]any{ra: true, rab: nil}, root: ab, want: true},
		{name: "invalid value is untrusted", store: map[string]any{rab: "yes"}, root: ab, want: false},
		{name: "no entry", store: map[string]any{filepath.Join(real, "z"): true}, root: ab, want: false},
		{name: "relative keys are ignored", store: map[string]any{"a": true}, root: a, want: false},
		{name: "unclean key", store: map[string]any{ra + string(filepath.Separator) + ".": true}, root: a, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, why := decideTrust(tc.store, tc.root)
			if got != tc.want {
				t.Errorf("trusted = %v (%s), want %v", got, why, tc.want)
			}
		})
	}
	t.Run("TrustStore reads the file", func(t *testing.T) {
		p := filepath.Join(dir, "trust.json")
		write(t, p, fmt.Sprintf(`{%q: true}`, ra))
		if ok, err := (TrustStore{Path: p}).Trust(ab); !ok || err != nil {
			t.Errorf("Trust = %v, %v", ok, err)
		}
		if ok, err := (TrustStore{Path: filepath.Join(dir, "none.json")}).Trust(ab); ok || err != nil {
			t.Errorf("missing store: Trust = %v, %v", ok, err)
		}
	})
}

func TestOptionsValidation(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		opts    Options
		wantErr bool
	}{
		{name: "app only", opts: Options{App: "atomic", Home: dir}},
		{name: "paths only", opts: Options{GlobalPath: filepath.Join(dir, "g.json"), ProjectRoot: dir, ProjectPath: filepath.Join(dir, "p.json")}},
		{name: "no app and no paths", opts: Options{Home: dir}, wantErr: true},
		{name: "project without path needs app", opts: Options{GlobalPath: filepath.Join(dir, "g.json"), ProjectRoot: dir}, wantErr: true},
		{name: "app with separator", opts: Options{App: "a/b", Home: dir}, wantErr: true},
		{name: "bad section name", opts: Options{App: "a", Home: dir, Sections: []Section{{Name: "Herdr"}}}, wantErr: true},
		{name: "dotted section key", opts: Options{App: "a", Home: dir, Sections: []Section{{Name: "herdr", Keys: []string{"a.b"}}}}, wantErr: true},
		{name: "duplicate section", opts: Options{App: "a", Home: dir, Sections: []Section{{Name: "x"}, {Name: "x"}}}, wantErr: true},
		{name: "negative debounce", opts: Options{App: "a", Home: dir, Debounce: -1}, wantErr: true},
		{name: "project path without root", opts: Options{App: "a", Home: dir, ProjectPath: "p.json"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.opts)
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrOptions)) {
				t.Errorf("err = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestDefaultPaths(t *testing.T) {
	f := newFixture(t)
	s, _ := Load(f.opts)
	got := []string{s.Files()[0].Path, s.Files()[1].Path, settings.DefaultTrustFile("/h", "atomic")}
	want := []string{f.global, f.project, filepath.Join("/h", ".atomic", "agent", "trust.json")}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("paths (-got +want):\n%s", diff)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{``, `{}`, "\ufeff{}", `{"herdr":{"enabled":false}}`, `[1]`, `null`, `{"a":`, "{\n\"a\": 1,\n}", `{"a":1e999}`, `{} x`, "\xff\xfe"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decode(data)
		body := bytes.TrimPrefix(data, bom)
		if trimmed := bytes.TrimSpace(body); json.Valid(body) && len(trimmed) > 0 && trimmed[0] == '{' && err != nil {
			t.Fatalf("valid object %q: %v", data, err)
		}
		if err != nil {
			var se *syntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a syntax error", err)
			}
			line, col := position(data, se.offset)
			if line < 1 || col < 1 {
				t.Fatalf("position %d:%d", line, col)
			}
			return
		}
		if m == nil {
			t.Fatal("nil map without error")
		}
		c := &config{sections: testSections, known: map[string]map[string]bool{"herdr": {"enabled": true, "agent": true}, "noop": {"enabled": true}}}
		lc := extract(c, "f", m)
		_ = build(c, lc, lc, nil)
	})
}

func TestDecodeValidObjectNeverFails(t *testing.T) {
	for _, s := range []string{`{}`, ` {"a":[1,{"b":null}],"c":"\u00e9"} `, "\ufeff\n{\"a\":1}\n"} {
		if _, err := decode([]byte(s)); err != nil {
			t.Errorf("decode(%q) = %v", s, err)
		}
	}
}

// A FileStatus encodes its layer and condition as their names, and the
// trust store's entry has no layer.
func TestFileStatusJSONShowsNames(t *testing.T) {
	tests := []struct {
		name string
		fs   FileStatus
		want string
	}{
		{"project", FileStatus{Layer: LayerProject, Path: "/p", Condition: ConditionTooLarge},
			`{"layer":"project","path":"/p","condition":"too_large"}`},
		{"trust store", FileStatus{Path: "/t", TrustStore: true, Condition: ConditionMissing},
			`{"path":"/t","trust_store":true,"condition":"missing"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.fs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(got), tt.want); diff != "" {
				t.Errorf("JSON (-got +want):\n%s", diff)
			}
			var back FileStatus
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(back, tt.fs); diff != "" {
				t.Errorf("decoded back (-got +want):\n%s", diff)
			}
		})
	}
}

// trusted reports whether fs, the project layer's status, says the project
// is trusted.
func trusted(fs FileStatus) bool { return fs.Condition != ConditionUntrusted }
