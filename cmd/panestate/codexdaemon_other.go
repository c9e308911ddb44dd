//go:build !linux

package main

import "github.com/panestate/panestate/internal/hook"

// codexPanePID follows the agent process itself where the process table
// cannot be read as on Linux: for Codex's app-server daemon (macOS), the
// daemon, which outlives the TUI (docs/agents.md says to turn
// daemon_auto_start off there).
func codexPanePID(_ hook.Agent, pid int, _ []string) (int, bool) { return pid, true }
