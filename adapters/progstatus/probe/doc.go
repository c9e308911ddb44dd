// Package probe asks the terminal whether it reads the Program Status
// Protocol (OSC 7501), for a host to run before its TUI takes the
// terminal, and hands the answer to the progstatus adapter.
//
// [Run] writes the query ESC ] 7501 ; ? ESC \ followed by DA1 (ESC [ c)
// and reads the answers with the terminal in raw mode: a terminal that
// reads OSC 7501 answers the query with the same bytes before it answers
// DA1; one that does not answers only DA1; something that is not a
// terminal, or a terminal that answers nothing, costs the whole wait
// ([DefaultWait]). The terminal's mode is restored before Run returns.
//
// This package imports nothing of panestate, so that a host may call it
// and still import no adapter:
//
//	res, err := probe.Run(ctx, "", 0) // the controlling terminal, the default wait
//	if err == nil {
//		opts.Env = append(os.Environ(), res.Env()) // registry.Options
//	}
//
// Inside tmux the probe answers Unsupported: tmux answers DA1 itself and
// drops the query, and only the setting progstatus.enabled turns the
// adapter on there.
package probe
