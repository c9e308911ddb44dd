//go:build !linux && !darwin

package main

import "github.com/panestate/panestate/internal/hook"

// bridgeSupported is false: there is no bridge here.
const bridgeSupported = false

// deliver does nothing here: the bridge needs Unix sockets with peer
// credentials (Linux, macOS). The hook still reads its event and exits 0.
func deliver(hook.Event, []string, []string) {}

// eventTime is not needed where nothing is delivered.
func eventTime() int64 { return 0 }

// agentPID is not needed where nothing is delivered.
func agentPID() int { return 0 }

// runBridge is not available here.
func runBridge([]string, []string) int { return 2 }

// lastTerminal: no bridge runs here.
func lastTerminal(hook.Agent, []string) string { return "" }
