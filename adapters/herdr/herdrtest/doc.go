// Package herdrtest emulates Herdr closely enough to test a reporter, or a
// whole host program, against it: a server that listens on a real socket
// and speaks Herdr's newline-delimited JSON, and a fake herdr executable
// that parses argv exactly as the real CLI does and is a client of that
// server, as the real one is. It emulates Herdr 0.8.2 (socket protocol 20)
// by default and Herdr 0.9.3 (protocol 22) on request ([Options.Version]).
//
// The rules it follows are those of the project's Herdr contract
// (CONTRACT.md, read from Herdr 0.8.2's source; "§" numbers below are its
// sections) and, for 0.9.3, of HERDR-0.9.md. Where the emulator had to
// choose something those documents do not state, the code says
// "inferred"; what they mark unverified is marked so here too.
//
// # Setup
//
// The fake binary is the current executable, re-executed under the name
// herdr, busybox-style. Every test package (and program) that uses [Start]
// calls [Main] first thing:
//
//	func TestMain(m *testing.M) {
//		herdrtest.Main() // runs the fake CLI and exits when invoked as herdr
//		// ... clear every HERDR_* variable, then:
//		os.Exit(m.Run())
//	}
//
// Then [Start] (or [StartT]) creates a directory with the fake binary
// ([Herdr.Bin], a link named herdr to the current executable), a control
// file and an invocation log, and starts the server in this process.
// [Herdr.Env] gives the variables Herdr sets in a pane (§1.6);
// [Herdr.PaneEnv] a complete, private environment for a host process, with
// HOME and the XDG directories in a directory of the test's.
//
// # The emulated server
//
// The server listens on the Unix socket [Herdr.Socket] (HERDR_SOCKET_PATH,
// mode 0600, §1.6), or on Windows on the named pipe `\\.\pipe\` followed by
// that path, with a marker file at the path (HERDR-0.9.md "Windows"). It
// follows Herdr's framing (§2.1): one request per connection, 5 s to
// receive the line, at most 1 MiB for it, no response to a line that ends
// without a newline, to an empty line or to one that is too long or late,
// and one response line, then the connection closes; a client that leaves
// a write of the server's stalled for 5 s is dropped. Requests from every
// connection are handled one at a time, in the order their lines arrive.
// The shapes are those of package wire (§2.2-2.4): `ping` answers `pong`
// with the version, the protocol and the capabilities; a request that does
// not decode answers invalid_request with an empty id.
//
// Methods emulated: ping, pane.report_agent, pane.release_agent,
// pane.report_agent_session, pane.clear_agent_authority (socket only, as in
// Herdr: it answers {"type":"ok"} and clears the authority when its source
// is omitted or matches, §3.5), pane.get, pane.list, pane.current,
// agent.get, agent.list and agent.focus: every method of Herdr 0.8.2's
// published schema that the contract describes. Not emulated, because the
// contract does not state what they do: pane.report_metadata and
// workspace.report_metadata, pane.focus, event subscriptions
// (pane.agent_status_changed and the rest), and the schema's workspace,
// tab, pane-layout and terminal input/output methods. Each of those
// answers invalid_request, as a method unknown to Herdr does, so a host
// that calls one fails loudly against the emulator rather than passing on
// a guess.
//
// Server rules emulated (§3): pane lookup (pane_not_found), agent label
// normalisation and built-in aliases (invalid_agent for a blank label), the
// official source classes (reserved, session-only and full-lifecycle pairs),
// one authority record per pane, sequence high-water marks that survive
// release, silently ignored stale and unsequenced-after-sequenced requests,
// the release rules, dropped custom session references, a stored official
// session (a reserved pair's, or the session of a full-lifecycle pair's
// live authority) that blocks custom reports, a message stored but never
// shown, and the seen/done model of §3.9 with a simple view model:
// [Options.InView], [Herdr.SetInView] and [Herdr.Focus].
// [Herdr.StopServer] and [Herdr.StartServer] are a real restart: the socket
// goes away, and a started server has no authority and no high-water mark
// (§3.3).
//
// # The fake CLI
//
// Commands emulated: pane report-agent, pane release-agent, pane
// report-agent-session (argv parsing, exit codes and stderr texts of §1),
// pane get, pane list, pane current, agent get, agent list, agent focus
// (the §4 JSON shapes, as the server sends them), status [client|server]
// [--json] (§6), --version and api schema --json. Global preprocessing
// (§1.1) is emulated: non-UTF-8 argv, --session, --remote,
// --remote-keybindings and --handoff, all before a literal "--", so a
// value equal to one of those tokens is swallowed as by the real CLI.
// Socket resolution follows §1.6.
//
// Where the contract leaves a text or a rule open, the emulator follows
// Herdr 0.8.2's source (the contract's commit), cited as src/... at the
// code: the session-name and remote-option errors, the protocol_mismatch
// guidance, the EmptyResponse error, status's restart_needed and session,
// pane current, pane list --workspace, agent focus's answer, the agent
// label table, the 5 s write timeout and the UTF-8 rule of a request line.
//
// Each command that needs the server does what Herdr's CLI does (§1.5): a
// ping on one connection (id api-client:status), protocol_mismatch unless
// the server's protocol equals its own, then the request on a second
// connection (id cli:request for the agent commands), with no timeout; and
// server_not_running when nothing listens.
//
// # Versions
//
// [Version082] is the default. [Version093] differs where HERDR-0.9.md says
// a reporter can observe it, and nowhere else: the ping reports 0.9.3 and
// protocol 22, and so do --version, status and api schema; report-agent
// and report-agent-session accept options before the pane id and
// --opt=value (0.9.0, #2926), and "-- argv..." as the resume argv; the
// server accepts resume_argv on pane.report_agent and
// pane.report_agent_session and answers invalid_resume_argv or
// resume_not_accepted (0.9.2). Its limits (64 words, 8 KiB, no control
// characters, a plain first word) are a third party's quotes of Herdr's
// source: unverified. 0.8.2 rejects "--" with "unknown option: --" (§1.2)
// and ignores a resume_argv param as it ignores every unknown field (§2.2).
// [Herdr.ResumeArgv] shows what the server accepted.
//
// # Inspecting and steering
//
// [Herdr.Calls] returns the invocation log ([Call]): each CLI invocation
// (argv, HERDR_* variables, exit code, output sizes) and each request a
// client sent on the socket itself, with its [Transport], so a test can
// assert that no process was spawned, and its [Call.Arrival], the order in
// which the server received it. A CLI invocation's own ping and request
// are part of its call: the server tells its fake binaries' connections
// from others by the peer's process id (SO_PEERCRED on Linux,
// LOCAL_PEERPID on macOS, the pipe's client process on Windows).
//
// [Herdr.Agent] and [Herdr.HighWater] read the server state without a
// connection. [Herdr.Wait] blocks until what a pane shows satisfies a
// condition, and [Herdr.WaitCalls] until the calls do: no polling. A ctx
// without a deadline (t.Context()) is bounded by [WaitTimeout], so that a
// failing wait fails the test instead of hanging it. [ClearEnv] unsets
// every HERDR_* and TMUX* variable for a test, so that one run inside a
// live Herdr pane or tmux session never touches it.
// [Herdr.SetFault] makes later requests hang, wait, fail, spew, answer
// garbage or claim another protocol, on either transport ([Fault]).
// [Herdr.Hold] makes the server hold the agent requests it has read, from
// the fake CLI and from socket clients alike, before applying them, as a
// slow server does, until [Hold.Resume] applies them in arrival order;
// [Hold.Held] waits until a number of them are held. A client that gives up
// meanwhile does not take its request back.
//
// # Limits
//
// The emulator does not model process detection (a built-in agent running
// in the pane, its exit, and the conflicts and clean-ups tied to it),
// pane-id aliases and legacy id forms, agent names, pane close, live
// handoff (a restart via StopServer/StartServer stands in for it),
// metadata, event subscriptions, or Herdr 0.9's pid ownership latch and
// idle-prompt clean-up (unverified for custom sources). Its invalid_request
// messages are Go's decoding errors, not serde's, though it fails where
// serde does: on a key in the wrong case (an unknown field), a field given
// twice, trailing characters. On platforms other than Linux, macOS
// and Windows it cannot read a peer's process id, so a fake binary's
// requests are logged as socket calls of their own as well.
//
// Of the contract's 60-item checklist the package's tests cover every item
// except 55 (a custom label masking a later-detected known agent needs
// process detection). Item 21 is covered through the socket path in the
// server_not_running message, item 60 through the Hang fault.
package herdrtest
