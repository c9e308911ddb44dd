package herdr

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/panestate/panestate/adapter"
)

// Why an argv value is refused. None of these texts quote the value.
var (
	errNotUTF8   = errors.New("not valid UTF-8")
	errControl   = errors.New("contains control characters")
	errHijacked  = errors.New("is a global option the Herdr CLI would consume")
	errHelpToken = errors.New("would make the Herdr CLI print its help")
)

// checkArg reports why s must not be passed as an argv value to the Herdr
// CLI: the CLI exits 2 on non-UTF-8 argv, and its global preprocessing
// removes --session, --remote and --remote-keybindings (with or without
// "=value") and moves --handoff before the pane parser sees them, wherever
// they stand. Control characters are refused too: nothing legitimate has
// them, and they would corrupt the one-line JSON Herdr logs.
func checkArg(s string) error {
	if !utf8.ValidString(s) {
		return errNotUTF8
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return errControl
		}
	}
	switch s {
	case "--session", "--remote", "--remote-keybindings", "--handoff":
		return errHijacked
	case "--help", "-h":
		return errHelpToken
	}
	for _, p := range []string{"--session=", "--remote=", "--remote-keybindings="} {
		if strings.HasPrefix(s, p) {
			return errHijacked
		}
	}
	return nil
}

// hiddenRune returns the first rune of s that a reader cannot see or that
// reorders what follows it, and true, or false when there is none: format
// characters (bidirectional embeddings, overrides and isolates such as
// U+202E and U+2066, zero-width spaces and joiners such as U+200B, the byte
// order mark, the soft hyphen), other default-ignorable code points
// (U+3164 and its kin, variation selectors), and every space or separator
// but U+0020. The app name refuses them by allowing only [A-Za-z0-9._-];
// an agent label may be any visible text, so they are refused by name.
func hiddenRune(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && r != 0x7f:
			continue // ASCII: control characters are checkArg's
		case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector),
			unicode.IsSpace(r), unicode.Is(unicode.Zs, r):
			return r, true
		}
	}
	return 0, false
}

// checkSource validates a report source: 1 to 80 characters of
// [A-Za-z0-9:._-], not in Herdr's reserved "herdr:" namespace, and not a
// token the CLI would swallow.
func checkSource(s string) error {
	if len(s) == 0 || len(s) > 80 {
		return fmt.Errorf("herdr: source %q must be 1 to 80 characters of A-Z a-z 0-9 : . _ -", adapter.Bound(s, 100))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == ':' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("herdr: source %q must be 1 to 80 characters of A-Z a-z 0-9 : . _ -", adapter.Bound(s, 100))
		}
	}
	if strings.HasPrefix(s, "herdr:") {
		return fmt.Errorf("herdr: source %q is in Herdr's reserved herdr: namespace (use custom:<name>)", s)
	}
	if err := checkArg(s); err != nil {
		return fmt.Errorf("herdr: source %q %w", s, err)
	}
	return nil
}

// checkLabel validates an agent label: not empty, a safe argv value, and not
// a name Herdr reads as one of its built-in agents. Herdr ties such labels
// to process detection: it ignores reports while a different known agent is
// detected and clears the label when that agent's process exits.
func checkLabel(s string) error {
	if err := checkArg(s); err != nil {
		return fmt.Errorf("herdr: agent label %w", err)
	}
	if r, ok := hiddenRune(s); ok {
		return fmt.Errorf("herdr: agent label contains the invisible or bidirectional character %U (it would show as something it is not)", r)
	}
	if strings.TrimSpace(s) == "" {
		return errors.New("herdr: agent label is empty (set herdr.agent, or give the host an app name)")
	}
	if name, ok := builtinAgent(s); ok {
		return fmt.Errorf("herdr: agent label %q is Herdr's built-in agent %q (choose another label)", s, name)
	}
	return nil
}

// builtinAliases are the names Herdr maps to its built-in agents (after
// trimming, lowercasing and stripping one executable suffix), with the
// canonical label each maps to. The list is Herdr 0.8.2's plus the aliases
// later releases added: refusing a few more labels costs nothing, while
// accepting one that a newer Herdr couples to process detection would make
// reports vanish. Read-only.
var builtinAliases = map[string]string{
	"pi":     "pi",
	"claude": "claude", "claude-code": "claude",
	"codex":  "codex",
	"gemini": "gemini",
	"cursor": "cursor", "cursor-agent": "cursor",
	"devin": "devin", "devin-cli": "devin", "devin cli": "devin",
	"agy": "agy", "antigravity": "agy", "antigravity-cli": "agy", "antigravity_cli": "agy",
	"cline": "cline", ".cline": "cline",
	"omp":        "omp",
	"mastracode": "mastracode", "mastra-code": "mastracode", "mastra code": "mastracode",
	"opencode": "opencode", "opencode2": "opencode", "open-code": "opencode",
	"copilot": "copilot", "github-copilot": "copilot", "ghcs": "copilot",
	"kimi": "kimi", "kimi-code": "kimi", "kimi code": "kimi",
	"kiro": "kiro", "kiro-cli": "kiro",
	"droid": "droid",
	"amp":   "amp", "amp-local": "amp",
	"grok": "grok", "grok-build": "grok",
	"hermes": "hermes", "hermes-agent": "hermes",
	"kilo": "kilo", "kilo-code": "kilo", "kilo code": "kilo",
	"qodercli": "qodercli", "qoderclicn": "qodercli", "qoder": "qodercli", "qodercn": "qodercli",
	"qwen": "qwen", "qwen-code": "qwen", "qwen code": "qwen",
	"letta": "letta", "letta-code": "letta", "letta code": "letta",
	"maki": "maki",
	"muse": "muse", "muse-code": "muse", "muse-cli": "muse",
	"jcode": "jcode", "j-code": "jcode",
}

// builtinAgent reports the built-in agent Herdr would read label as, the way
// Herdr normalises labels: trim, lowercase, strip one of .exe .cmd .bat .ps1
// .js, and look the last path component up among the aliases.
func builtinAgent(label string) (string, bool) {
	name := strings.ToLower(strings.TrimSpace(label))
	for _, suffix := range []string{".exe", ".cmd", ".bat", ".ps1", ".js"} {
		if before, ok := strings.CutSuffix(name, suffix); ok {
			name = before
			break
		}
	}
	if i := strings.LastIndexAny(strings.TrimRight(name, `/\`), `/\`); i >= 0 {
		name = strings.TrimRight(name, `/\`)[i+1:]
	}
	if canonical, ok := builtinAliases[name]; ok {
		return canonical, true
	}
	// Muse's launcher runs "muse-bin-<version>".
	if rest, ok := strings.CutPrefix(name, "muse-bin-"); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		return "muse", true
	}
	return "", false
}

// isAbsPath reports whether p is absolute on this system or in Windows form
// (C:\x, C:/x, \\server\share): a host may run on one system and name a file
// of another.
func isAbsPath(p string) bool {
	if filepath.IsAbs(p) {
		return true
	}
	if len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		return true
	}
	return strings.HasPrefix(p, `\\`)
}

// Limits of a resume argv, as a third party quotes them from Herdr 0.9.2's
// src/agent_resume.rs (HERDR-0.9.md; not verified in Herdr's source).
const (
	maxResumeWords = 64
	maxResumeBytes = 8192
)

// Why a resume argv is refused. None of these texts quote the argv.
var (
	errResumeEmpty      = errors.New("is empty")
	errResumeTooMany    = fmt.Errorf("has more than %d words", maxResumeWords)
	errResumeTooLong    = fmt.Errorf("is longer than %d bytes", maxResumeBytes)
	errResumeCommand    = errors.New("does not start with a plain command name (A-Z a-z 0-9 _ . -, no path, no leading -)")
	errResumeApostrophe = errors.New("contains an apostrophe")
)

// checkResume reports why words cannot be sent to Herdr as the command that
// reopens the session: Herdr refuses the whole report for an argv whose
// first word is not a plain command name ([A-Za-z0-9_.-]+, not starting
// with "-"), that has an apostrophe or a control character in any word,
// more than 64 words or more than 8 KiB (HERDR-0.9.md). The CLI also needs
// valid UTF-8. The byte count is the words' lengths plus one separator
// each.
func checkResume(words []string) error {
	if len(words) == 0 {
		return errResumeEmpty
	}
	if len(words) > maxResumeWords {
		return errResumeTooMany
	}
	size := 0
	for _, w := range words {
		size += len(w) + 1
		if !utf8.ValidString(w) {
			return errNotUTF8
		}
		for _, r := range w {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				return errControl
			}
			if r == '\'' {
				return errResumeApostrophe
			}
		}
	}
	if size > maxResumeBytes {
		return errResumeTooLong
	}
	cmd := words[0]
	if cmd == "" || cmd[0] == '-' {
		return errResumeCommand
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return errResumeCommand
		}
	}
	return nil
}
