package hook

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// codexRecorded reads the trust records of a config.toml Codex wrote:
// key to hash.
func codexRecorded(t *testing.T, config string) map[string]string {
	t.Helper()
	out := map[string]string{}
	key := ""
	for l := range strings.Lines(config) {
		l = strings.TrimSpace(l)
		if k, ok := strings.CutPrefix(l, `[hooks.state."`); ok {
			key = strings.TrimSuffix(k, `"]`)
		}
		if h, ok := strings.CutPrefix(l, `trusted_hash = "`); ok && key != "" {
			out[key] = strings.TrimSuffix(h, `"`)
		}
	}
	return out
}

// TestCodexTrustsAreThoseCodexRecords: for the hooks.json that `panestate
// install codex` writes, the trust panestate computes is, key for key and
// hash for hash, what Codex 0.169.0's own TUI recorded on "Trust all"
// (testdata/codex-trust).
func TestCodexTrustsAreThoseCodexRecords(t *testing.T) {
	hooks, err := os.ReadFile(filepath.Join("testdata", "codex-trust", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := os.ReadFile(filepath.Join("testdata", "codex-trust", "config-trusted-by-codex.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if ours, _, _ := Install(Codex, "panestate", nil); !slices.Equal(commandsOf(t, ours), commandsOf(t, hooks)) {
		t.Fatalf("the fixture is not what Install writes now:\n%s", ours)
	}
	trusts, skipped, err := CodexTrusts("/home/user/.codex/hooks.json", hooks)
	if err != nil || skipped != 0 {
		t.Fatalf("CodexTrusts: %d skipped, %v", skipped, err)
	}
	got := map[string]string{}
	for _, tr := range trusts {
		got[tr.Key] = tr.Hash
	}
	want := codexRecorded(t, string(theirs))
	if len(want) != len(Events(Codex)) {
		t.Fatalf("fixture holds %d records, want %d", len(want), len(Events(Codex)))
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("trust (-ours +Codex's):\n%s", diff)
	}
}

// commandsOf lists the events and commands of a settings file, sorted.
func commandsOf(t *testing.T, content []byte) []string {
	var out []string
	for ev, cs := range commands(t, content) {
		for _, c := range cs {
			out = append(out, ev+" "+c)
		}
	}
	slices.Sort(out)
	return out
}

// TestCodexHookHashAsCodexRecordedIt: hashes that Codex 0.169.0 recorded
// for the capture hook of the investigation (/tmp/cx/cap.sh), timeout 5:
// SessionEnd's is that of timeout 3, to which Codex clamps it.
func TestCodexHookHashAsCodexRecordedIt(t *testing.T) {
	tests := []struct {
		event, want string
	}{
		{"pre_tool_use", "sha256:d30075f16b7f39ddda1423c5154c4294d0305ee1f5110fdf956358909b16a36f"},
		{"stop", "sha256:381bf3d6066f70e3ef30fe2cd48a16e7a380868389e4e28c93a571527d01204d"},
		{"session_end", "sha256:c299ed1d318baf16257cb0f9b5ceff9a2ce6a7480e1f8fedc34ec4913d95ab9d"},
	}
	for _, tt := range tests {
		h := map[string]json.RawMessage{"type": json.RawMessage(`"command"`), "command": json.RawMessage(`"/tmp/cx/cap.sh"`), "timeout": json.RawMessage(`5`)}
		got, ok := codexHookHash(tt.event, nil, h)
		if !ok || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.event, got, ok, tt.want)
		}
	}
}

// TestCodexTrustsLeavesWhatItCannotComputeToThePerson: a panestate hook
// with a matcher or a field panestate does not write is counted, not
// trusted; the person's own hooks are neither.
func TestCodexTrustsLeavesWhatItCannotComputeToThePerson(t *testing.T) {
	const hooks = `{"hooks": {
  "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}, {"hooks": [{"type": "command", "command": "panestate hook codex", "timeout": 3}]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "panestate hook codex"}]}],
  "PostToolUse": [{"hooks": [{"type": "command", "command": "panestate hook codex", "statusMessage": "x"}]}]
}}`
	trusts, skipped, err := CodexTrusts("/h/hooks.json", []byte(hooks))
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 2 || len(trusts) != 1 || trusts[0].Key != "/h/hooks.json:stop:1:0" {
		t.Errorf("trusts %v, %d skipped; want stop:1:0 alone, 2 skipped", trusts, skipped)
	}
	if _, _, err := CodexTrusts("/h/hooks.json", []byte(`[`)); !errors.Is(err, ErrSettings) {
		t.Errorf("not JSON: %v, want ErrSettings", err)
	}
}

func TestRecordCodexTrust(t *testing.T) {
	a := CodexTrust{Key: "/h/.codex/hooks.json:stop:0:0", Hash: "sha256:aa"}
	b := CodexTrust{Key: "/h/.codex/hooks.json:interrupt:0:0", Hash: "sha256:bb"}
	const mine = "model = \"o3\" # mine\n\n[tui]\nx = 1\n"
	tests := []struct {
		name, config, want string
		trusts             []CodexTrust
	}{
		{name: "no file", trusts: []CodexTrust{a},
			want: "[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\n"},
		{name: "appended after the person's lines", config: mine, trusts: []CodexTrust{a, b},
			want: mine + "\n[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\n" +
				"\n[hooks.state.\"/h/.codex/hooks.json:interrupt:0:0\"]\ntrusted_hash = \"sha256:bb\"\n"},
		{name: "no final newline", config: "model = \"o3\"", trusts: []CodexTrust{a},
			want: "model = \"o3\"\n\n[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\n"},
		{name: "a stale hash replaced, enabled kept",
			config: "[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:old\"\nenabled = true\n" + mine,
			trusts: []CodexTrust{a},
			want:   "[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\nenabled = true\n" + mine},
		{name: "a table without a hash", config: "[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\nenabled = true\n[tui]\n",
			trusts: []CodexTrust{a},
			want:   "[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\nenabled = true\ntrusted_hash = \"sha256:aa\"\n[tui]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := RecordCodexTrust([]byte(tt.config), tt.trusts)
			if err != nil || !changed {
				t.Fatalf("changed %v, %v", changed, err)
			}
			if diff := cmp.Diff(string(got), tt.want); diff != "" {
				t.Errorf("(-got +want):\n%s", diff)
			}
			again, changed, err := RecordCodexTrust(got, tt.trusts)
			if err != nil || changed || string(again) != string(got) {
				t.Errorf("again: changed %v, %v", changed, err)
			}
		})
	}
	for name, config := range map[string]string{
		"dotted key":   "hooks.state.\"/h/.codex/hooks.json:stop:0:0\".trusted_hash = \"x\"\n",
		"inline table": "[hooks.state]\n\"/h/.codex/hooks.json:stop:0:0\" = { trusted_hash = \"x\" }\n",
		"literal key":  "[hooks.state.'/h/.codex/hooks.json:stop:0:0']\ntrusted_hash = \"x\"\n",
	} {
		if _, _, err := RecordCodexTrust([]byte(config), []CodexTrust{a}); !errors.Is(err, ErrSettings) {
			t.Errorf("%s: %v, want ErrSettings", name, err)
		}
	}
}

// TestInstallUpgradesAnEarlierCodexInstallation: the hooks.json an earlier
// panestate wrote (StopFailure, which Codex 0.169.0 does not have; no
// SessionEnd, no Interrupt, whose absence left a rejected approval
// blocked) gets the new events and loses panestate's StopFailure hook; the
// person's own hooks, there too, stay.
func TestInstallUpgradesAnEarlierCodexInstallation(t *testing.T) {
	const earlier = `{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "panestate hook codex", "timeout": 5}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "panestate hook codex", "timeout": 5}]}],
  "PreToolUse": [{"hooks": [{"type": "command", "command": "panestate hook codex", "timeout": 5}]}],
  "PermissionRequest": [{"hooks": [{"type": "command", "command": "panestate hook codex", "timeout": 5}]}],
  "PostToolUse": [{"hooks": [{"type": "command", "command": "panestate hook codex", "timeout": 5}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}, {"hooks": [{"type": "command", "command": "panestate hook codex", "timeout": 5}]}],
  "StopFailure": [{"hooks": [{"type": "command", "command": "panestate hook codex", "timeout": 5}]}, {"hooks": [{"type": "command", "command": "page-me"}, {"type": "command", "command": "panestate hook codex"}]}]
}}`
	got, changed, err := Install(Codex, "panestate", []byte(earlier))
	if err != nil || !changed {
		t.Fatalf("changed %v, %v", changed, err)
	}
	want := map[string][]string{"StopFailure": {"page-me"}}
	for _, ev := range Events(Codex) {
		want[ev] = []string{"panestate hook codex"}
	}
	want["Stop"] = []string{"say done", "panestate hook codex"}
	if diff := cmp.Diff(commands(t, got), want); diff != "" {
		t.Errorf("commands (-got +want):\n%s", diff)
	}
	if again, changed, err := Install(Codex, "panestate", got); err != nil || changed || string(again) != string(got) {
		t.Errorf("again: changed %v, %v", changed, err)
	}
}
