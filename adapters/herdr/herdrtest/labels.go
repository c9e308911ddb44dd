package herdrtest

import "strings"

// builtinAliases maps a lowercased, suffix-stripped agent label to Herdr's
// canonical name for that built-in agent (CONTRACT §3.6): Herdr 0.8.2's
// whole table, lookup_agent and agent_label in src/detect/mod.rs:118-143,
// 188-214, read from its source. Any other label is kept verbatim by
// normalizeAgentLabel.
var builtinAliases = map[string]string{
	"pi":     "pi",
	"claude": "claude", "claude-code": "claude",
	"codex":  "codex",
	"gemini": "gemini",
	"cursor": "cursor", "cursor-agent": "cursor",
	"devin": "devin", "devin-cli": "devin", "devin cli": "devin",
	"agy": "agy", "antigravity": "agy", "antigravity-cli": "agy",
	"cline":      "cline",
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
	"maki": "maki",
}

// normalizeAgentLabel trims label and replaces a built-in alias (matched
// case-insensitively, after stripping one executable suffix) by its canonical
// name. Other labels are returned trimmed but otherwise verbatim. ok is false
// when the trimmed label is empty (the server's invalid_agent).
func normalizeAgentLabel(label string) (norm string, ok bool) {
	trimmed := strings.TrimSpace(label)
	if trimmed == "" {
		return "", false
	}
	key := strings.ToLower(trimmed)
	for _, suffix := range []string{".exe", ".cmd", ".bat", ".ps1", ".js"} {
		if stem, found := strings.CutSuffix(key, suffix); found {
			key = stem
			break
		}
	}
	if canon, found := builtinAliases[key]; found {
		return canon, true
	}
	return trimmed, true
}

// pairClass is the class of a (source, normalised agent) pair (CONTRACT §3.4).
type pairClass int

const (
	pairCustom        pairClass = iota // anything not on Herdr's official list
	pairReserved                       // herdr:X/X whose state Herdr owns natively
	pairSessionOnly                    // herdr:X/X that only carries a session identity
	pairFullLifecycle                  // herdr:X/X whose hook owns the whole lifecycle
)

func classifyPair(source, agent string) pairClass {
	switch source {
	case "herdr:hermes", "herdr:qwen", "herdr:antigravity_cli":
		if (source == "herdr:hermes" && agent == "hermes") ||
			(source == "herdr:antigravity_cli" && agent == "agy") {
			return pairSessionOnly
		}
	}
	name, isHerdr := strings.CutPrefix(source, "herdr:")
	if !isHerdr || name != agent {
		return pairCustom
	}
	switch name {
	case "claude", "codex", "copilot", "devin", "droid", "qodercli", "qwen", "cursor", "grok":
		// herdr:qwen/qwen is also session-only; the reserved branch runs
		// first in Herdr's dispatch, and both leave the state alone.
		return pairReserved
	case "pi", "omp", "mastracode", "opencode", "kilo", "kimi":
		return pairFullLifecycle
	}
	return pairCustom
}
