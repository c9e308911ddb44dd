package herdrtest

import (
	"fmt"
	"strings"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
)

// The Herdr versions the emulator can be ([Options.Version]).
const (
	// Version082 is Herdr 0.8.2, socket protocol 20: the version the
	// contract was read from. The default.
	Version082 = "0.8.2"
	// Version093 is Herdr 0.9.3, socket protocol 22, with the differences
	// of HERDR-0.9.md a reporter can observe: the CLI's wider grammar and
	// resume argv.
	Version093 = "0.9.3"
)

// version is what differs between the emulated Herdr versions.
type version struct {
	name     string
	protocol int
	// flexibleCLI: report-agent and report-agent-session accept options
	// before the pane id and --opt=value (0.9.0, HERDR-0.9.md "CLI
	// grammar").
	flexibleCLI bool
	// resume: resume_argv on the socket and "-- argv..." on the CLI, with
	// invalid_resume_argv and resume_not_accepted (0.9.2, HERDR-0.9.md
	// "Resume argv").
	resume bool
}

var versions = []version{
	{name: Version082, protocol: wire.Protocol082},
	{name: Version093, protocol: wire.Protocol09, flexibleCLI: true, resume: true},
}

func lookupVersion(name string) (version, error) {
	if name == "" {
		name = Version082
	}
	var names []string
	for _, v := range versions {
		if v.name == name {
			return v, nil
		}
		names = append(names, v.name)
	}
	return version{}, fmt.Errorf("herdrtest: unknown Herdr version %q (emulated: %s)", name, strings.Join(names, ", "))
}

// capabilities are the pong's capabilities. Herdr 0.8.2's are in the
// contract (§2.4); the 0.9.x set was not read, so 0.9.3 answers the same
// (inferred).
var capabilities = wire.Capabilities{LiveHandoff: true}
