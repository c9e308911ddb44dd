package herdr

import (
	"strconv"
	"strings"

	"github.com/panestate/panestate/adapter"
)

var _ adapter.Previewer = Driver{}

// Routes, as Preview names them: the transport a report takes, or none.
const (
	routeSocket = "socket"
	routeCLI    = "cli"
	routeNone   = "none" // every report fails (protocol_mismatch, or no answer)
)

// Preview returns the setup Open would give the adapter for p, for the
// registry's Explain before Attach (see [adapter.Previewer]): the source,
// agent label, timeout and refresh interval, keyed as the adapter's own
// Details key them, and how the adapter picks its transport.
//
//   - "transport": the setting (auto, socket or cli).
//   - "transport_protocols": the socket protocols the adapter speaks,
//     space-separated ("20 22").
//   - "route_speaks": the route it takes when the server answers its ping
//     in one of those protocols; "route_otherwise": the route when the
//     ping fails or the protocol is another. A route is "socket", "cli" or
//     "none" (every report then fails).
//   - "route": the same in a sentence.
//
// Check must have returned nil for p; Preview returns nil otherwise. It
// does no I/O: which route applies depends on the server's answer, which
// the caller (the doctor) asks for itself.
func (Driver) Preview(p adapter.Params) map[string]string {
	c, err := decodeSettings(p.Settings)
	if err != nil {
		return nil
	}
	source, label, err := c.identity(p.App)
	if err != nil {
		return nil
	}
	refresh := "off"
	if c.refresh > 0 {
		refresh = c.refresh.String()
	}
	protocols := make([]string, len(knownProtocols))
	for i, n := range knownProtocols {
		protocols[i] = strconv.Itoa(n)
	}
	speaks, otherwise := modeRoutes(c.mode)
	return map[string]string{
		"source":              source,
		"agent":               label,
		"timeout":             c.timeout.String(),
		"refresh":             refresh,
		"transport":           c.mode.String(),
		"transport_protocols": strings.Join(protocols, " "),
		"route_speaks":        speaks,
		"route_otherwise":     otherwise,
		"route":               routeSentence(c.mode, strings.Join(protocols, " or ")),
	}
}

// modeRoutes returns the route a report takes in mode when the server speaks a
// known protocol, and otherwise, as transportFor chooses.
func modeRoutes(mode transportMode) (speaks, otherwise string) {
	switch mode {
	case transportCLI:
		return routeCLI, routeCLI
	case transportSocket:
		return routeSocket, routeNone
	}
	return routeSocket, routeCLI
}

// routeSentence says the same as modeRoutes, for people.
func routeSentence(mode transportMode, protocols string) string {
	switch mode {
	case transportCLI:
		return "cli: the setting; it never dials the socket"
	case transportSocket:
		return "socket: the setting; every report fails unless the server answers its ping in protocol " + protocols
	}
	return "socket when the server answers its ping in protocol " + protocols + ", otherwise cli (but a ping that times out fails the report: the server is wedged)"
}
