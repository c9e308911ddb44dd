// Package herdrtest emulates Herdr 0.8.2 (socket protocol 20) closely enough
// to test a reporter against it: a fake herdr executable that parses argv
// exactly as the real CLI does, and an emulated server that keeps the
// per-pane agent authority, per-(pane, source) sequence high-water marks and
// the "done" status. The rules it follows are those of the project's Herdr
// contract (CONTRACT.md, "Herdr 0.8.2: the contract a custom agent-state
// reporter must meet").
//
// # Setup
//
// The fake binary is the current executable, re-executed under the name
// herdr, busybox-style. Every test package (and program) that uses [Start]
// calls [Main] first thing:
//
//	func TestMain(m *testing.M) {
//		herdrtest.Main() // runs the fake CLI and exits when invoked as herdr
//		for _, kv := range os.Environ() {
//			if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "HERDR_") {
//				os.Unsetenv(k)
//			}
//		}
//		os.Exit(m.Run())
//	}
//
// Then [Start] (or [StartT]) creates a directory with the fake binary
// ([Herdr.Bin], a link named herdr to the current executable), the server
// state, a control file and an invocation log. [Herdr.Env] and
// [Herdr.Setenv] give the variables Herdr sets in a pane.
//
// # The emulated server
//
// The server's state is a JSON file whose path is HERDR_SOCKET_PATH
// ([Herdr.Socket]). When that file is absent, the CLI answers as if nothing
// listened: server_not_running, exit 1. [Herdr.StopServer] and
// [Herdr.StartServer] remove and recreate it; a restart loses every
// authority and high-water mark, as in Herdr. Each invocation appends a
// start line to the log on entry; then it takes a cross-process lock, reads
// the state, applies the command, writes the state back atomically and
// appends its end line, so concurrent invocations are serialised in arrival
// order, as Herdr's single app channel does. A call killed before it
// finishes keeps its start line and is listed as unfinished.
//
// Commands emulated: pane report-agent, pane release-agent, pane
// report-agent-session (argv parsing, exit codes and stderr texts of
// CONTRACT §1), pane get, pane list, pane current, agent get, agent list,
// agent focus (the §4 JSON shapes), status [client|server] [--json] (§6),
// --version and api schema --json. Global preprocessing (§1.1) is
// emulated: non-UTF-8 argv, --session, --remote, --remote-keybindings and
// --handoff, all before a literal "--", so a value equal to one of those
// tokens is swallowed as by the real CLI. Socket resolution follows §1.6.
//
// Server rules emulated (§3): pane lookup (pane_not_found), agent label
// normalisation and built-in aliases (invalid_agent for a blank label), the
// official source classes (reserved, session-only and full-lifecycle pairs),
// one authority slot per pane, sequence high-water marks that survive
// release, silently ignored stale and unsequenced-after-sequenced requests,
// the release rules, dropped custom session references, a stored official
// session (a reserved pair's, or the session of a full-lifecycle pair's
// live authority) that blocks custom reports, --message stored but never shown, and
// the seen/done model of §3.9 with a simple view model: [Options.InView],
// [Herdr.SetInView] and [Herdr.Focus].
//
// # Inspecting and steering
//
// [Herdr.Calls] returns the invocation log ([Call]: argv, HERDR_* variables,
// start and end times, exit code, output sizes). [Herdr.Agent] and
// [Herdr.HighWater] read the server state without a subprocess.
// [Herdr.SetFault] makes later invocations hang, sleep, leave a grandchild
// holding stdout, spew output, print garbage, fail with usage or server
// errors, or claim another protocol ([Fault]).
//
// # Limits
//
// The emulator does not model process detection (a built-in agent running
// in the pane, its exit, and the conflicts and clean-ups tied to it),
// pane-id aliases and legacy id forms, agent names, pane close, live
// handoff (a restart via StopServer/StartServer stands in for it), or the
// socket wire. Of the contract's 60-item checklist, the package's tests
// cover every item except:
//
//   - 22-26: the raw socket exchange (ping and request lines, parameter key
//     order, ok and invalid_request responses, the trailing newline). The
//     emulator has no socket; its CLI talks to a state file.
//   - 55: a custom label masking a later-detected known agent needs process
//     detection, which is not modelled.
//
// Item 21 is covered through the socket path in the server_not_running
// message, item 60 through the Hang fault.
package herdrtest
