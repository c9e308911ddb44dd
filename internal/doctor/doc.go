// Package doctor answers "why does my pane show nothing?" for a host
// started with the example hosts' flags (package hostflags): what the
// registry's Explain says before Attach, checked against the live Herdr or
// tmux server and pane. examples/doctor and `panestate doctor` run it; its
// flags, output and exit status are documented with examples/doctor.
package doctor
