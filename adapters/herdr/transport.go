package herdr

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// transportMode is the "transport" setting, and the transport a call used.
type transportMode uint8

const (
	// transportAuto pings the server once per claim and uses the socket when
	// its protocol is one this adapter knows, else the CLI.
	transportAuto transportMode = iota
	transportSocket
	transportCLI
)

var transportNames = [...]string{"auto", "socket", "cli"}

func (t transportMode) String() string { return transportNames[t] }

// parseTransport reads the "transport" setting ("" is auto).
func parseTransport(s string) (transportMode, bool) {
	i := slices.Index(transportNames[:], cmp.Or(s, "auto"))
	return transportMode(max(i, 0)), i >= 0
}

// knownProtocols are the socket protocols whose pane.report_agent and
// pane.release_agent this adapter speaks: 20 (Herdr 0.8.x) and 22 (0.9.x).
// Read-only.
var knownProtocols = []int{20, 22}

func knownProtocol(p int) bool { return slices.Contains(knownProtocols, p) }

// pong is what a ping told of the server.
type pong struct {
	Version  string
	Protocol int
}

// resumeSupported reports whether a server of version v accepts a resume
// argv: 0.9.2 and later. A pre-release (0.9.2-preview...) of 0.9.2 does not
// count; one of a later release does. An unparsable version does not.
func resumeSupported(v string) bool {
	core, pre, _ := strings.Cut(v, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return false
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return false
		}
		n[i] = x
	}
	c := cmp.Or(cmp.Compare(n[0], 0), cmp.Compare(n[1], 9), cmp.Compare(n[2], 2))
	return c > 0 || c == 0 && pre == ""
}
