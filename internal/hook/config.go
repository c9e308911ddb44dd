package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Events returns the hook events of agent that panestate listens to, in the
// order the agent's documentation lists them.
func Events(agent Agent) []string {
	switch agent {
	case ClaudeCode:
		return []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
			"Notification", "Stop", "StopFailure", "SessionEnd", "SubagentStart", "SubagentStop"}
	case Codex:
		return []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop", "StopFailure",
			"SubagentStart", "SubagentStop"}
	case Gemini:
		return []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "Notification", "AfterAgent", "SessionEnd"}
	}
	return nil
}

// SettingsFile is where agent keeps its hooks, relative to the home
// directory.
func SettingsFile(agent Agent) string {
	switch agent {
	case ClaudeCode:
		return ".claude/settings.json"
	case Codex:
		return ".codex/hooks.json"
	case Gemini:
		return ".gemini/settings.json"
	}
	return ""
}

// handler is one hook command, in the agents' shared shape.
type handler struct {
	Name    string `json:"name,omitempty"` // Gemini CLI shows it
	Type    string `json:"type"`
	Command string `json:"command"`
	// Timeout: seconds for Claude Code and Codex, milliseconds for Gemini
	// CLI. The hook returns in milliseconds; this only bounds a hook that
	// could not.
	Timeout int `json:"timeout"`
}

// group is a matcher group: the hooks run for one event.
type group struct {
	Hooks []handler `json:"hooks"`
}

// handlerFor is the hook command of agent, run as command.
func handlerFor(agent Agent, command string) handler {
	h := handler{Type: "command", Command: shellWord(command) + " hook " + string(agent), Timeout: 5}
	if agent == Gemini {
		h.Name, h.Timeout = "panestate", 5000
	}
	return h
}

// shellWord quotes s for a POSIX shell, which the agents run their hook
// commands through, unless it is one word as it is (a path with a space,
// a quote or a '$' is quoted).
func shellWord(s string) string {
	plain := s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._+-:@%=,", r))
	})
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Config returns the hook configuration of agent in its own settings
// format, with command as the panestate program: a JSON object with one
// "hooks" key, ready to paste into the agent's settings file.
func Config(agent Agent, command string) ([]byte, error) {
	if SettingsFile(agent) == "" {
		return nil, fmt.Errorf("%w %q", ErrUnknownAgent, agent)
	}
	hooks := map[string][]group{}
	for _, ev := range Events(agent) {
		hooks[ev] = []group{{Hooks: []handler{handlerFor(agent, command)}}}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"hooks": hooks}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ErrSettings is wrapped by the errors of Install for a settings file that
// cannot be changed safely.
var ErrSettings = errors.New("hook: settings file")

// Install adds agent's hooks (run as command) to the content of its
// settings file (nil or empty for a file that does not exist yet) and
// returns the new content, and whether anything changed. It keeps every
// other key and every other hook; an event that already runs a
// `panestate hook <agent>` command is left as it is, so Install is
// idempotent. A file that is not a JSON object, or whose hooks are not in
// the agent's shape, is an error wrapping ErrSettings, and nothing changes.
func Install(agent Agent, command string, content []byte) ([]byte, bool, error) {
	if SettingsFile(agent) == "" {
		return nil, false, fmt.Errorf("%w %q", ErrUnknownAgent, agent)
	}
	top := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(content)) > 0 {
		if err := json.Unmarshal(content, &top); err != nil {
			return nil, false, fmt.Errorf("%w: not a JSON object: %v", ErrSettings, err)
		}
	}
	hooks := map[string][]json.RawMessage{}
	if raw, ok := top["hooks"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &hooks); err != nil {
			return nil, false, fmt.Errorf("%w: \"hooks\" is not an object of arrays: %v", ErrSettings, err)
		}
	}
	changed := false
	h := handlerFor(agent, command)
	for _, ev := range Events(agent) {
		if slices.ContainsFunc(hooks[ev], func(g json.RawMessage) bool { return runsPanestate(g, agent) }) {
			continue
		}
		g, err := json.Marshal(group{Hooks: []handler{h}})
		if err != nil {
			return nil, false, err
		}
		hooks[ev] = append(hooks[ev], g)
		changed = true
	}
	if !changed {
		return content, false, nil
	}
	raw, err := json.Marshal(hooks)
	if err != nil {
		return nil, false, err
	}
	top["hooks"] = raw
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(top); err != nil {
		return nil, false, err
	}
	// Re-indent the nested raw messages.
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, false, err
	}
	return out.Bytes(), true, nil
}

// runsPanestate reports whether a matcher group runs `... hook <agent>` of
// panestate.
func runsPanestate(g json.RawMessage, agent Agent) bool {
	var v group
	if json.Unmarshal(g, &v) != nil {
		return false
	}
	return slices.ContainsFunc(v.Hooks, func(h handler) bool {
		return bytes.Contains([]byte(h.Command), []byte("panestate")) &&
			bytes.HasSuffix(bytes.TrimSpace([]byte(h.Command)), []byte(" hook "+string(agent)))
	})
}
