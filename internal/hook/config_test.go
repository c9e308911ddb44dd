package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// commands returns, per event, the commands a settings file runs.
func commands(t *testing.T, content []byte) map[string][]string {
	t.Helper()
	var v struct {
		Hooks map[string][]group `json:"hooks"`
	}
	if err := json.Unmarshal(content, &v); err != nil {
		t.Fatalf("%v\n%s", err, content)
	}
	out := map[string][]string{}
	for ev, gs := range v.Hooks {
		for _, g := range gs {
			for _, h := range g.Hooks {
				out[ev] = append(out[ev], h.Command)
			}
		}
	}
	return out
}

func TestConfigRunsTheHookOnEveryEvent(t *testing.T) {
	for _, agent := range Agents {
		t.Run(string(agent), func(t *testing.T) {
			b, err := Config(agent, "panestate")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]string{}
			for _, ev := range Events(agent) {
				want[ev] = []string{"panestate hook " + string(agent)}
			}
			if diff := cmp.Diff(commands(t, b), want); diff != "" {
				t.Errorf("commands (-got +want):\n%s", diff)
			}
		})
	}
}

// notInstalled are events Parse maps but the configuration leaves out on
// purpose: Gemini CLI's model events (AfterModel fires for every chunk of
// a streamed reply, and each hook delays the agent) say only "working",
// which BeforeAgent, BeforeTool and AfterTool already say within a turn.
var notInstalled = map[Agent][]string{
	Gemini: {"BeforeModel", "BeforeToolSelection", "AfterModel"},
}

// TestConfigSubscribesToEveryMappedFixture: every documented event that
// changes the pane (each fixture Parse does not ignore) is one the
// configuration runs the hook on; an event left out (a turn that fails)
// would leave the pane stuck.
func TestConfigSubscribesToEveryMappedFixture(t *testing.T) {
	for _, agent := range Agents {
		files, err := filepath.Glob(filepath.Join("testdata", string(agent), "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: fixtures %q, %v", agent, files, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			e, err := Parse(agent, b)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var p payload
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			if e.Kind != KindIgnore && !slices.Contains(Events(agent), p.Event) && !slices.Contains(notInstalled[agent], p.Event) {
				t.Errorf("%s: %s means %v, but the configuration does not run the hook on it", agent, p.Event, e.Kind)
			}
		}
	}
}

// TestConfigEventsAreMapped checks that every event the configuration
// subscribes to means something to Parse.
func TestConfigEventsAreMapped(t *testing.T) {
	for _, agent := range Agents {
		for _, ev := range Events(agent) {
			b, _ := json.Marshal(map[string]string{"hook_event_name": ev, "notification_type": "permission_prompt"})
			if ev == "Notification" && agent == Gemini {
				b, _ = json.Marshal(map[string]string{"hook_event_name": ev, "notification_type": "ToolPermission"})
			}
			if strings.HasPrefix(ev, "Subagent") { // only with the subagent's id
				b, _ = json.Marshal(map[string]string{"hook_event_name": ev, "agent_id": "a1b2c3"})
			}
			e, err := Parse(agent, b)
			if err != nil || (e.Kind == KindIgnore && e.Sub == SubNone) {
				t.Errorf("%s %s: kind %v, sub %v, %v", agent, ev, e.Kind, e.Sub, err)
			}
		}
	}
}

func TestInstallKeepsEverythingElseAndIsIdempotent(t *testing.T) {
	const theirs = `{
  "model": "opus",
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],
    "PreCompact": [{"hooks": [{"type": "command", "command": "backup.sh"}]}]
  }
}`
	got, changed, err := Install(ClaudeCode, "/opt/bin/panestate", []byte(theirs))
	if err != nil || !changed {
		t.Fatalf("Install = changed %v, %v", changed, err)
	}
	want := map[string][]string{"PreCompact": {"backup.sh"}}
	for _, ev := range Events(ClaudeCode) {
		want[ev] = append(want[ev], "/opt/bin/panestate hook claude-code")
	}
	want["Stop"] = []string{"notify-send done", "/opt/bin/panestate hook claude-code"}
	if diff := cmp.Diff(commands(t, got), want); diff != "" {
		t.Errorf("commands (-got +want):\n%s", diff)
	}
	var top map[string]any
	if err := json.Unmarshal(got, &top); err != nil || top["model"] != "opus" {
		t.Errorf("other keys lost: %v %v", top, err)
	}
	again, changed, err := Install(ClaudeCode, "panestate", got)
	if err != nil || changed || !slices.Equal(again, got) {
		t.Errorf("second Install = changed %v, %v; want unchanged", changed, err)
	}
}

func TestInstallRefusesAFileItCannotChangeSafely(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":          `{"hooks": `,
		"JSON with comment": "// mine\n{}",
		"an array":          `[]`,
		"hooks not object":  `{"hooks": ["x"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := Install(Gemini, "panestate", []byte(content)); !errors.Is(err, ErrSettings) {
				t.Errorf("err = %v, want ErrSettings", err)
			}
		})
	}
}

func TestInstallIntoNothing(t *testing.T) {
	got, changed, err := Install(Codex, "panestate", nil)
	if err != nil || !changed {
		t.Fatalf("Install = %v, %v", changed, err)
	}
	cfg, _ := Config(Codex, "panestate")
	if diff := cmp.Diff(commands(t, got), commands(t, cfg)); diff != "" {
		t.Errorf("(-got +want):\n%s", diff)
	}
}

// TestConfigQuotesTheProgramsPath: agents run the command through a
// shell, so a path with a space or a shell character is quoted, and
// Install still finds the hook it added.
func TestConfigQuotesTheProgramsPath(t *testing.T) {
	tests := []struct {
		name, command, want string
	}{
		{name: "on PATH", command: "panestate", want: "panestate hook codex"},
		{name: "a plain path", command: "/home/ann/go/bin/panestate", want: "/home/ann/go/bin/panestate hook codex"},
		{name: "a space", command: "/Users/Ann Lee/go/bin/panestate", want: "'/Users/Ann Lee/go/bin/panestate' hook codex"},
		{name: "a quote", command: "/home/o'hara/panestate", want: `'/home/o'\''hara/panestate' hook codex`},
		{name: "a dollar", command: "/home/$x/panestate", want: "'/home/$x/panestate' hook codex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Config(Codex, tt.command)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(commands(t, b)["Stop"], []string{tt.want}); diff != "" {
				t.Errorf("(-got +want):\n%s", diff)
			}
			if _, changed, err := Install(Codex, tt.command, b); err != nil || changed {
				t.Errorf("Install over its own config: changed %v, %v; want no change", changed, err)
			}
		})
	}
}

// TestInstallRefusesNull: a settings file holding JSON null (or whose
// "hooks" holds something that is not an object) is an error, not a
// panic.
func TestInstallRefusesNull(t *testing.T) {
	for name, content := range map[string]string{
		"null":              `null`,
		"null with space":   " null\n",
		"a string":          `"x"`,
		"a number":          `1`,
		"an event not list": `{"hooks": {"Stop": {}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := Install(ClaudeCode, "panestate", []byte(content)); !errors.Is(err, ErrSettings) {
				t.Errorf("err = %v, want ErrSettings", err)
			}
		})
	}
}

// TestInstallKeepsTheFilesKeyOrder: the top-level keys and the events
// under "hooks" keep the order the file gives them, so that a diff of the
// file shows only the hooks added (after the events already there).
func TestInstallKeepsTheFilesKeyOrder(t *testing.T) {
	const theirs = `{
  "zeta": 1,
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    "PreCompact": [{"hooks": [{"type": "command", "command": "backup.sh"}]}]
  },
  "alpha": {"z": 1, "a": 2},
  "mine": true
}`
	got, changed, err := Install(ClaudeCode, "panestate", []byte(theirs))
	if err != nil || !changed {
		t.Fatalf("Install = changed %v, %v", changed, err)
	}
	if got, want := keysOf(t, got, nil), []string{"zeta", "hooks", "alpha", "mine"}; !slices.Equal(got, want) {
		t.Errorf("top-level keys %q, want %q", got, want)
	}
	if got, want := keysOf(t, got, []string{"alpha"}), []string{"z", "a"}; !slices.Equal(got, want) {
		t.Errorf("nested keys %q, want %q", got, want)
	}
	want := []string{"Stop", "PreCompact"}
	for _, ev := range Events(ClaudeCode) {
		if !slices.Contains(want, ev) {
			want = append(want, ev)
		}
	}
	if got := keysOf(t, got, []string{"hooks"}); !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	// A file without hooks gets them last.
	got, _, err = Install(ClaudeCode, "panestate", []byte(`{"mine": 1, "alpha": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keysOf(t, got, nil), []string{"mine", "alpha", "hooks"}; !slices.Equal(got, want) {
		t.Errorf("top-level keys %q, want %q", got, want)
	}
}

// keysOf returns the keys, in order, of the object at path in the JSON
// object b.
func keysOf(t *testing.T, b []byte, path []string) []string {
	t.Helper()
	for _, k := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		b = m[k]
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestMissingNamesTheEventsWithoutTheHook: Missing lists the events that
// run no panestate hook, none once Install ran, and refuses what Install
// refuses.
func TestMissingNamesTheEventsWithoutTheHook(t *testing.T) {
	if got, err := Missing(Gemini, nil); err != nil || !slices.Equal(got, Events(Gemini)) {
		t.Errorf("Missing(nothing) = %q, %v; want every event", got, err)
	}
	got, _, err := Install(Gemini, "/opt/panestate", []byte(`{"hooks": {"Stop": []}}`))
	if err != nil {
		t.Fatal(err)
	}
	if missing, err := Missing(Gemini, got); err != nil || len(missing) > 0 {
		t.Errorf("Missing after Install = %q, %v; want none", missing, err)
	}
	partial := []byte(`{"hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "panestate hook gemini"}]}]}}`)
	want := slices.DeleteFunc(slices.Clone(Events(Gemini)), func(ev string) bool { return ev == "AfterAgent" })
	if missing, err := Missing(Gemini, partial); err != nil || !slices.Equal(missing, want) {
		t.Errorf("Missing(partial) = %q, %v; want %q", missing, err, want)
	}
	if _, err := Missing(Gemini, []byte("null")); !errors.Is(err, ErrSettings) {
		t.Errorf("Missing(null) = %v, want ErrSettings", err)
	}
}
