package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// CodexTrust is the trust Codex records for one hook of a hooks.json file
// in its config.toml: a table [hooks.state."<Key>"] with trusted_hash =
// "<Hash>". Codex 0.169.0 runs a hook of ~/.codex/hooks.json only when its
// recorded hash is the hash of the hook as the file has it now (its TUI
// asks "Hooks need review" otherwise, and codex exec skips it).
type CodexTrust struct {
	// Key is "<hooks.json path>:<event>:<group>:<handler>": the file's
	// path as Codex names it, the event in snake case and the positions of
	// the matcher group and of the handler in it.
	Key string
	// Hash is "sha256:" and the hex digest of the hook's normalised
	// identity.
	Hash string
}

// codexShortTimeouts are the events whose hook timeout Codex 0.169.0
// clamps to codexShortTimeout seconds (it warns "clamping SessionEnd hook
// timeout to 3s"), before it hashes the hook.
var codexShortTimeouts = []string{"session_end", "interrupt"}

const codexShortTimeout = 3

// codexDefaultTimeout is Codex's timeout for a hook that sets none.
const codexDefaultTimeout = 600

// CodexTrusts returns the trust of each panestate hook in content, the
// hooks.json that Codex reads at hooksPath (an absolute path, spelled as
// Codex spells it: $CODEX_HOME with its links resolved, or ~/.codex), and
// the number of panestate hooks whose trust it cannot compute exactly
// (a matcher, a field other than type, command, timeout and async, or a
// command that Codex's JSON would spell otherwise): the person trusts
// those in Codex.
//
// The hash is Codex 0.169.0's, as its source (codex-rs/hooks discovery)
// computes it and as its TUI's "Trust all" recorded it (testdata/codex):
// the SHA-256 of the compact JSON, keys sorted, of {"event_name":
// <snake case>, "hooks": [{"async", "command", "timeout", "type"}]}.
func CodexTrusts(hooksPath string, content []byte) ([]CodexTrust, int, error) {
	var file struct {
		Hooks map[string][]map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(content, &file); err != nil {
		return nil, 0, fmt.Errorf("%w: not Codex's hooks.json: %v", ErrSettings, err)
	}
	var out []CodexTrust
	skipped := 0
	for _, ev := range Events(Codex) {
		label := snakeCase(ev)
		for i, g := range file.Hooks[ev] {
			var handlers []map[string]json.RawMessage
			if json.Unmarshal(g["hooks"], &handlers) != nil {
				continue
			}
			for j, h := range handlers {
				var command string
				if json.Unmarshal(h["command"], &command) != nil || !isPanestateCommand(command, Codex) {
					continue
				}
				hash, ok := codexHookHash(label, g, h)
				if !ok {
					skipped++
					continue
				}
				out = append(out, CodexTrust{Key: fmt.Sprintf("%s:%s:%d:%d", hooksPath, label, i, j), Hash: hash})
			}
		}
	}
	return out, skipped, nil
}

// codexHookHash is the hash Codex gives handler h of matcher group g of
// the event label, when panestate can compute it exactly.
func codexHookHash(label string, g, h map[string]json.RawMessage) (string, bool) {
	for k := range g {
		if k != "hooks" {
			return "", false // a matcher: whether Codex keeps it depends on the event
		}
	}
	var command, typ string
	timeout, async := uint64(codexDefaultTimeout), false
	for k, v := range h {
		var err error
		switch k {
		case "type":
			err = json.Unmarshal(v, &typ)
		case "command":
			err = json.Unmarshal(v, &command)
		case "timeout":
			err = json.Unmarshal(v, &timeout)
		case "async":
			err = json.Unmarshal(v, &async)
		default:
			return "", false
		}
		if err != nil {
			return "", false
		}
	}
	if typ != "command" || strings.ContainsFunc(command, func(r rune) bool { return r == '\u2028' || r == '\u2029' }) {
		return "", false
	}
	timeout = max(timeout, 1)
	if slices.Contains(codexShortTimeouts, label) {
		timeout = min(timeout, codexShortTimeout)
	}
	identity := map[string]any{
		"event_name": label,
		"hooks":      []map[string]any{{"async": async, "command": command, "timeout": timeout, "type": "command"}},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // serde_json escapes only quotes, backslashes and control characters
	if err := enc.Encode(identity); err != nil {
		return "", false
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), true
}

// snakeCase spells an event as Codex's keys do: PreToolUse, pre_tool_use.
func snakeCase(ev string) string {
	var b strings.Builder
	for i, r := range ev {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// RecordCodexTrust returns config, the content of Codex's config.toml,
// with each trust recorded as Codex records it: a table
// [hooks.state."<key>"] whose trusted_hash is set (added at the end when
// the file has no such table, the line replaced or added when it has), and
// whether anything changed. Every other line stays as it is. A key that
// the file names other than by such a table header (a dotted key, an
// inline table) is an error wrapping ErrSettings, and nothing changes:
// adding a table there would make the file invalid.
func RecordCodexTrust(config []byte, trusts []CodexTrust) ([]byte, bool, error) {
	lines := strings.SplitAfter(string(config), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	changed := false
	for _, tr := range trusts {
		quoted := tomlString(tr.Key)
		header := "[hooks.state." + quoted + "]"
		value := "trusted_hash = " + tomlString(tr.Hash)
		at := -1
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if t == header {
				at = i
				break
			}
			if strings.Contains(l, tr.Key) && !strings.HasPrefix(t, "#") {
				return nil, false, fmt.Errorf("%w: config.toml names the hook %s other than by a [hooks.state.\"…\"] table", ErrSettings, tr.Key)
			}
		}
		if at < 0 {
			if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
				lines[n-1] += "\n"
			}
			if len(lines) > 0 {
				lines = append(lines, "\n")
			}
			lines = append(lines, header+"\n", value+"\n")
			changed = true
			continue
		}
		end := len(lines)
		set := false
		for i := at + 1; i < len(lines); i++ {
			t := strings.TrimSpace(lines[i])
			if strings.HasPrefix(t, "[") {
				end = i
				break
			}
			if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == "trusted_hash" {
				if t != value {
					lines[i] = value + "\n"
					changed = true
				}
				set = true
				break
			}
		}
		if !set {
			lines = append(lines[:end], append([]string{value + "\n"}, lines[end:]...)...)
			changed = true
		}
	}
	if !changed {
		return config, false, nil
	}
	return []byte(strings.Join(lines, "")), true, nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
