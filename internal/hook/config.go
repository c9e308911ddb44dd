package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Events returns the hook events of agent that panestate listens to, in the
// order the agent's documentation lists them.
func Events(agent Agent) []string {
	switch agent {
	case ClaudeCode:
		return []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure",
			"Notification", "Stop", "StopFailure", "SessionEnd", "SubagentStart", "SubagentStop"}
	case Codex:
		// Not SubagentStart and SubagentStop: no run here made Codex 0.169.0
		// start a subagent, and every hook added makes Codex ask the person
		// to review the hooks again.
		return []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop", "SessionEnd", "Interrupt"}
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
	switch agent {
	case Gemini:
		h.Name, h.Timeout = "panestate", 5000
	case Codex:
		// Codex 0.169.0 clamps SessionEnd and Interrupt hooks to 3 s, with
		// a warning on every start; the same bound everywhere says it once.
		h.Timeout = codexShortTimeout
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
// other key and every other hook, in the file's own order (an event new to
// the file comes after those already there, "hooks" last when the file had
// none), so that a diff of the file shows only the hooks added; an event
// that already runs a `panestate hook <agent>` command is left as it is, so
// Install is idempotent, and run again it upgrades an earlier installation:
// it adds the events panestate now listens to and removes its hooks from
// events the agent does not have (Codex's StopFailure). A file that is not
// a JSON object (JSON null included), or whose hooks are not in the agent's
// shape, is an error
// wrapping ErrSettings, and nothing changes.
func Install(agent Agent, command string, content []byte) ([]byte, bool, error) {
	if SettingsFile(agent) == "" {
		return nil, false, fmt.Errorf("%w %q", ErrUnknownAgent, agent)
	}
	top, hooks, err := parseSettings(content)
	if err != nil {
		return nil, false, err
	}
	changed := false
	for _, ev := range retired(agent) {
		gs, removed, err := withoutPanestate(hooks.groups(ev), agent)
		if err != nil {
			return nil, false, fmt.Errorf("%w: the %s hooks are not in the agent's shape: %v", ErrSettings, ev, err)
		}
		if !removed {
			continue
		}
		if len(gs) == 0 {
			hooks = hooks.without(ev)
		} else {
			list, err := json.Marshal(gs)
			if err != nil {
				return nil, false, err
			}
			hooks = hooks.set(ev, list)
		}
		changed = true
	}
	h := handlerFor(agent, command)
	for _, ev := range Events(agent) {
		groups := hooks.groups(ev)
		if slices.ContainsFunc(groups, func(g json.RawMessage) bool { return runsPanestate(g, agent) }) {
			continue
		}
		g, err := json.Marshal(group{Hooks: []handler{h}})
		if err != nil {
			return nil, false, err
		}
		list, err := json.Marshal(append(groups, g))
		if err != nil {
			return nil, false, err
		}
		hooks = hooks.set(ev, list)
		changed = true
	}
	if !changed {
		return content, false, nil
	}
	top = top.set("hooks", hooks.encode())
	// Indent the whole, the raw members with it.
	var out bytes.Buffer
	if err := json.Indent(&out, top.encode(), "", "  "); err != nil {
		return nil, false, err
	}
	out.WriteByte('\n')
	return out.Bytes(), true, nil
}

// Missing returns the events of agent (Events) on which the content of its
// settings file (nil or empty for a file that does not exist) runs no
// `panestate hook <agent>` command: none when the hooks are installed.
// Content that Install would refuse is an error wrapping ErrSettings.
func Missing(agent Agent, content []byte) ([]string, error) {
	if SettingsFile(agent) == "" {
		return nil, fmt.Errorf("%w %q", ErrUnknownAgent, agent)
	}
	_, hooks, err := parseSettings(content)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, ev := range Events(agent) {
		if !slices.ContainsFunc(hooks.groups(ev), func(g json.RawMessage) bool { return runsPanestate(g, agent) }) {
			missing = append(missing, ev)
		}
	}
	return missing, nil
}

// parseSettings reads a settings file's content: the top-level object and
// its "hooks" object, each empty when absent.
func parseSettings(content []byte) (top, hooks object, err error) {
	if len(bytes.TrimSpace(content)) > 0 {
		if top, err = parseObject(content); err != nil {
			return nil, nil, fmt.Errorf("%w: not a JSON object: %v", ErrSettings, err)
		}
	}
	if raw, ok := top.get("hooks"); ok && string(raw) != "null" {
		if hooks, err = parseObject(raw); err == nil {
			err = hooks.eachArray()
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w: \"hooks\" is not an object of arrays: %v", ErrSettings, err)
		}
	}
	return top, hooks, nil
}

// groups returns the matcher groups of event ev in hooks (checked by
// eachArray); nil when it has none.
func (o object) groups(ev string) []json.RawMessage {
	raw, _ := o.get(ev)
	var groups []json.RawMessage
	_ = json.Unmarshal(raw, &groups)
	return groups
}

// object is a JSON object's members in the order of its text.
type object []member

// member is one key of a JSON object and its value as it is written.
type member struct {
	key   string
	value json.RawMessage
}

// parseObject reads b, which must be one JSON object and nothing more.
func parseObject(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("found %s", jsonKind(tok))
	}
	o := object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var m member
		m.key, _ = tok.(string) // a key is always a string here
		if err := dec.Decode(&m.value); err != nil {
			return nil, err
		}
		o = append(o, m)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more after the object")
	}
	return o, nil
}

// jsonKind names what tok starts.
func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// get returns the value of key: its last member, as a JSON decoder reads
// it.
func (o object) get(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return o[i].value, true
		}
	}
	return nil, false
}

// without returns o without its members named key.
func (o object) without(key string) object {
	return slices.DeleteFunc(o, func(m member) bool { return m.key == key })
}

// set gives key the value v in place (its last member), or adds it last.
func (o object) set(key string, v json.RawMessage) object {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			o[i].value = v
			return o
		}
	}
	return append(o, member{key, v})
}

// eachArray checks that every member is an array (or null).
func (o object) eachArray() error {
	for _, m := range o {
		var groups []json.RawMessage
		if err := json.Unmarshal(m.value, &groups); err != nil {
			return fmt.Errorf("%q: %v", m.key, err)
		}
	}
	return nil
}

// encode writes o as a JSON object, its members in order.
func (o object) encode() json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		_ = enc.Encode(m.key)       // a string always encodes
		buf.Truncate(buf.Len() - 1) // Encode's newline
		buf.WriteByte(':')
		buf.Write(m.value)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// runsPanestate reports whether a matcher group runs `... hook <agent>` of
// panestate.
func runsPanestate(g json.RawMessage, agent Agent) bool {
	var v group
	if json.Unmarshal(g, &v) != nil {
		return false
	}
	return slices.ContainsFunc(v.Hooks, func(h handler) bool { return isPanestateCommand(h.Command, agent) })
}

// isPanestateCommand reports whether command is `... hook <agent>` of
// panestate.
func isPanestateCommand(command string, agent Agent) bool {
	return strings.Contains(command, "panestate") && strings.HasSuffix(strings.TrimSpace(command), " hook "+string(agent))
}

// retired returns the events that an earlier panestate installed for
// agent and that the agent does not have: Install removes panestate's
// hooks from them. Codex 0.169.0 has no StopFailure (it ignores the key).
func retired(agent Agent) []string {
	if agent == Codex {
		return []string{"StopFailure"}
	}
	return nil
}

// withoutPanestate returns the matcher groups gs without panestate's hook
// for agent: a group that runs only panestate goes, a group that also runs
// the person's own hooks keeps those. It reports whether anything went.
func withoutPanestate(gs []json.RawMessage, agent Agent) ([]json.RawMessage, bool, error) {
	var out []json.RawMessage
	removed := false
	for _, g := range gs {
		if !runsPanestate(g, agent) {
			out = append(out, g)
			continue
		}
		var v map[string]json.RawMessage
		var hs []json.RawMessage
		if err := json.Unmarshal(g, &v); err != nil {
			return nil, false, err
		}
		if err := json.Unmarshal(v["hooks"], &hs); err != nil {
			return nil, false, err
		}
		hs = slices.DeleteFunc(hs, func(h json.RawMessage) bool {
			var c handler
			return json.Unmarshal(h, &c) == nil && isPanestateCommand(c.Command, agent)
		})
		removed = true
		if len(hs) == 0 {
			continue
		}
		raw, err := json.Marshal(hs)
		if err != nil {
			return nil, false, err
		}
		v["hooks"] = raw
		g, err = json.Marshal(v)
		if err != nil {
			return nil, false, err
		}
		out = append(out, g)
	}
	return out, removed, nil
}
