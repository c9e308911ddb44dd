package herdrtest

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The Test* functions of this file drive the emulator through the items
// of the contract's conformance checklist (CONTRACT §9), one named subtest
// per item (two items share one where they are one behaviour). An item
// that is a server rule runs on both transports, as subtests cli and
// socket: the socket case sends the request the CLI command stands for and
// compares the response with what the CLI prints. Items 22-26, the socket
// wire itself, are in wire_test.go.

// item is one checklist item.
type item struct {
	name string
	opts Options
	on   []Transport // nil: the CLI only
	run  func(r runner)
}

func runItems(t *testing.T, items []item) {
	t.Helper()
	for _, it := range items {
		t.Run(it.name, func(t *testing.T) {
			t.Parallel()
			if it.on == nil {
				it.run(newRunner(t, it.opts))
				return
			}
			for _, tr := range it.on {
				t.Run(string(tr), func(t *testing.T) {
					t.Parallel()
					it.run(newRunner(t, it.opts).on(tr))
				})
			}
		})
	}
}

const p = "w1:p1"

// TestChecklistCLIGrammar covers checklist items 1-15: argv parsing, exit codes and texts, global preprocessing (§1.1-1.2). CLI only.
func TestChecklistCLIGrammar(t *testing.T) {
	runItems(t, []item{
		{name: "01_no_args_usage", opts: Options{}, run: func(r runner) {
			r.usage(usageReportAgent, "pane", "report-agent")
			r.usage(usageReleaseAgent, "pane", "release-agent")
			r.usage(usageReportAgentSession, "pane", "report-agent-session")
		}},
		{name: "02_help_after_subcommand", opts: Options{}, run: func(r runner) {
			for _, flag := range []string{"--help", "-h"} {
				got := r.run("pane", "report-agent", flag)
				if got.Code != 0 || got.Stderr != "" || !strings.Contains(got.Stdout, strings.TrimPrefix(usageReportAgent, "usage: ")) {
					r.t.Errorf("report-agent %s = %+v", flag, got)
				}
			}
			// Even with more args after it, help wins when it is first.
			if got := r.run("pane", "release-agent", "--help", "junk"); got.Code != 0 || got.Stdout == "" {
				r.t.Errorf("release-agent --help junk = %+v", got)
			}
		}},
		{name: "03_help_after_pane_is_unknown", opts: Options{}, run: func(r runner) {
			r.usage("unknown option: --help", "pane", "report-agent", p, "--help")
			r.usage("unknown option: -h", "pane", "release-agent", p, "-h")
		}},
		{name: "04_missing_or_blank_source", opts: Options{}, run: func(r runner) {
			r.usage("missing required --source", "pane", "report-agent", p, "--agent", lbl, "--state", "idle")
			r.usage("missing required --source", report(p, "   ", lbl, "idle")...)
			r.usage("missing required --source", "pane", "release-agent", p, "--agent", lbl)
			r.usage("missing required --source", "pane", "report-agent-session", p, "--source", "\t", "--agent", lbl)
		}},
		{name: "05_missing_agent_or_state", opts: Options{}, run: func(r runner) {
			r.usage("missing required --agent", "pane", "report-agent", p, "--source", src, "--state", "idle")
			r.usage("missing required --state", "pane", "report-agent", p, "--source", src, "--agent", lbl)
			r.usage("missing required --agent", "pane", "release-agent", p, "--source", src)
			// Order: source, then agent, then state.
			r.usage("missing required --source", "pane", "report-agent", p)
			r.usage("missing required --agent", "pane", "report-agent", p, "--source", src)
		}},
		{name: "06_missing_value", opts: Options{}, run: func(r runner) {
			for _, flag := range agentCommandFlags["report-agent"] {
				r.usage("missing value for "+flag, "pane", "report-agent", p, flag)
			}
			r.usage("missing value for --seq", append(release(p, src, lbl), "--seq")...)
			r.usage("missing value for --session-start-source", "pane", "report-agent-session", p, "--session-start-source")
		}},
		{name: "07_equals_form_is_unknown", opts: Options{}, run: func(r runner) {
			for sub, flags := range agentCommandFlags {
				for _, flag := range flags {
					tok := flag + "=x"
					r.usage("unknown option: "+tok, "pane", sub, p, tok)
				}
			}
			r.usage("unknown option: --source=custom:x", "pane", "report-agent", p, "--source=custom:x", "--agent", lbl, "--state", "idle")
		}},
		{name: "08_dashdash_and_second_positional", opts: Options{}, run: func(r runner) {
			r.usage("unknown option: --", report(p, src, lbl, "idle", "--")...)
			r.usage("unknown option: extra", report(p, src, lbl, "idle", "extra")...)
			r.usage("unknown option: w1:p2", "pane", "release-agent", p, "w1:p2", "--source", src, "--agent", lbl)
			// Flags of another subcommand are unknown too.
			r.usage("unknown option: --state", append(release(p, src, lbl), "--state", "idle")...)
			r.usage("unknown option: --message", append(release(p, src, lbl), "--message", "m")...)
		}},
		{name: "09_flags_before_pane", opts: Options{}, run: func(r runner) {
			r.usage("unknown option: "+src, "pane", "report-agent", "--source", src, "--agent", lbl, "--state", "working", p)
			// A flag-looking pane id is otherwise accepted, and then not found.
			r.want(serverErr("cli:request", "pane_not_found", "pane -x not found"), report("-x", src, lbl, "idle")...)
		}},
		{name: "10_state_values", opts: Options{}, run: func(r runner) {
			for _, s := range []string{"idle", "working", "blocked", "unknown"} {
				r.ok(report(p, src, lbl, s)...)
			}
			for _, s := range []string{"done", "Working", "", " idle"} {
				r.rust("invalid pane agent state: "+s+" (expected idle, working, blocked, or unknown)", report(p, src, lbl, s)...)
			}
		}},
		{name: "11_seq_values", opts: Options{}, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "+5")...)
			r.hwm(p, src, 5, true)
			r.ok(report(p, src, lbl, "working", "--seq", "18446744073709551615")...)
			r.hwm(p, src, 1<<64-1, true)
			for _, v := range []string{"-1", "", " 5", "1.5", "0x10", "18446744073709551616", "1e3"} {
				r.rust("invalid value for --seq: "+v, report(p, src, lbl, "working", "--seq", v)...)
			}
			r.rust("invalid value for --seq: x", append(release(p, src, lbl), "--seq", "x")...)
		}},
		{name: "12_in_loop_errors_first", opts: Options{}, run: func(r runner) {
			r.rust("invalid pane agent state: done (expected idle, working, blocked, or unknown)", "pane", "report-agent", p, "--state", "done")
			r.rust("invalid value for --seq: -1", "pane", "report-agent", p, "--seq", "-1", "--bogus")
			r.usage("unknown option: --bogus", "pane", "report-agent", p, "--bogus", "--seq", "-1")
			r.usage("missing value for --agent", "pane", "report-agent", p, "--state", "idle", "--agent")
		}},
		{name: "13_duplicate_last_wins", opts: Options{}, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--state", "blocked", "--seq", "1", "--seq", "7")...)
			r.agent(p, lbl, "blocked")
			r.hwm(p, src, 7, true)
			r.ok(report(p, "custom:other", lbl, "working", "--source", src, "--seq", "8")...)
			r.hwm(p, src, 8, true)
			r.hwm(p, "custom:other", 0, false)
			// An invalid earlier value fails even if a later one is valid.
			r.rust("invalid pane agent state: done (expected idle, working, blocked, or unknown)",
				report(p, src, lbl, "done", "--state", "idle")...)
			r.rust("invalid value for --seq: x", report(p, src, lbl, "idle", "--seq", "x", "--seq", "9")...)
		}},
		{name: "14_message_any_value", opts: Options{}, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--message", "")...)
			r.ok(report(p, src, lbl, "blocked", "--message", "--seq")...)
			r.agent(p, lbl, "blocked")
			r.hwm(p, src, 0, false) // "--seq" was the message, not a flag
			r.ok(report(p, src, lbl, "blocked", "--message", "-x ünïcode \"quoted\"")...)
		}},
		{name: "15_global_tokens_hijack_values", opts: Options{}, run: func(r runner) {
			r.want(result{Code: 2, Stderr: "error: missing value for --session\nrun 'herdr --help' for usage\n"},
				report(p, src, lbl, "working", "--message", "--session")...)
			// --session=x and --remote=x vanish, so --message eats the next token.
			r.usage("unknown option: 5", report(p, src, lbl, "working", "--message", "--session=x", "--seq", "5")...)
			// The texts are Herdr's (src/remote/attach.rs:68-160,
			// src/main.rs:545-557).
			global := func(msg string) result {
				return result{Code: 2, Stderr: "error: " + msg + "\nrun 'herdr --help' for usage\n"}
			}
			r.want(global("--remote can only be used with the default launch command"),
				report(p, src, lbl, "working", "--message", "--remote=host")...)
			r.want(global("--remote target must not start with '-'"), report(p, src, lbl, "working", "--message", "--remote", "--seq", "5")...)
			r.want(global("--remote can only be specified once"), report(p, src, lbl, "working", "--message", "--remote=a", "--remote=b")...)
			r.want(global("--remote-keybindings must be 'local' or 'server'"), report(p, src, "--remote-keybindings", "working")...)
			r.want(global("--remote-keybindings requires --remote"), report(p, src, lbl, "working", "--message", "--remote-keybindings=local")...)
			r.want(global("--remote-keybindings can only be specified once"),
				report(p, src, lbl, "working", "--message", "--remote-keybindings=local", "--remote-keybindings", "server")...)
			// --handoff moves to the end: here --message then eats "--seq".
			r.usage("unknown option: 5", report(p, src, lbl, "working", "--message", "--handoff", "--seq", "5")...)
			r.usage("unknown option: --handoff", report(p, src, lbl, "working", "--handoff")...)
			// A valid --session X pair is removed too (and would change the socket).
			r.usage("missing value for --message", report(p, src, lbl, "working", "--message", "--session", "s1")...)
			r.agent(p, "", "unknown")
			// After a literal "--" nothing is hijacked.
			r.usage("unknown option: --", report(p, src, lbl, "working", "--", "--session", "x")...)
			r.want(result{Code: 2, Stderr: "error: " + badSessionName + "\nrun 'herdr --help' for usage\n"},
				"--session", "a/b", "--version")
		}},
	})
}

// TestChecklistAnswers covers checklist items 16-21: the server's answers, server_not_running, protocol_mismatch and socket resolution (§1.5-1.6, §2.4).
func TestChecklistAnswers(t *testing.T) {
	runItems(t, []item{
		{name: "16_blank_agent_invalid", opts: Options{}, on: both, run: func(r runner) {
			r.want(serverErr("cli:request", "invalid_agent", "agent label must not be empty"), report(p, src, "  ", "working")...)
			r.want(serverErr("cli:request", "invalid_agent", "agent label must not be empty"), release(p, src, "")...)
			r.want(serverErr("cli:request", "pane_not_found", "pane w9:p9 not found"), report("w9:p9", src, "  ", "working")...)
		}},
		{name: "17_unknown_pane", opts: Options{}, on: both, run: func(r runner) {
			r.want(serverErr("cli:request", "pane_not_found", "pane w9:p9 not found"), report("w9:p9", src, lbl, "working")...)
			r.want(serverErr("cli:request", "pane_not_found", "pane w9:p9 not found"), release("w9:p9", src, lbl)...)
			r.want(serverErr("cli:pane:get", "pane_not_found", "pane w9:p9 not found"), "pane", "get", "w9:p9")
			r.want(serverErr("cli:agent:get", "agent_not_found", "agent target w9:p9 not found"), "agent", "get", "w9:p9")
		}},
		{name: "18_success_is_silent", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r.ok("pane", "report-agent-session", p, "--source", src, "--agent", lbl, "--seq", "2", "--agent-session-id", "s")
			r.ok(release(p, src, lbl, "--seq", "3")...)
		}},
		{name: "19_server_not_running", opts: Options{}, run: func(r runner) {
			if err := r.h.StopServer(); err != nil {
				r.t.Fatal(err)
			}
			want := serverErr("cli:request", "server_not_running",
				"no herdr server is running at "+jsonPath(r.h.Socket)+"; run `herdr` to start or attach it")
			r.want(want, report(p, src, lbl, "working")...)
			r.want(want, release(p, src, lbl)...)
			// Argv errors come before the server is contacted.
			r.usage("missing required --source", "pane", "report-agent", p)
		}},
		{name: "20_protocol_mismatch", opts: Options{}, run: func(r runner) {
			if err := r.h.SetFault(Fault{ProtocolMismatch: 19}); err != nil {
				r.t.Fatal(err)
			}
			r.want(serverErr("cli:request", "protocol_mismatch",
				`client protocol 20 is newer than server protocol 19; restart the Herdr server before using this command. `+
					`Stop the old server to use the new version.\nStopping exits pane processes.\n`+
					"Run `HERDR_SOCKET_PATH="+jsonPath(r.h.Socket)+" herdr server stop`, then restart Herdr with the same socket override."),
				report(p, src, lbl, "working", "--seq", "1")...)
			r.agent(p, "", "unknown")
			r.hwm(p, src, 0, false)
			if err := r.h.SetFault(Fault{ProtocolMismatch: 21}); err != nil {
				r.t.Fatal(err)
			}
			r.want(serverErr("cli:request", "protocol_mismatch",
				"client protocol 20 is older than server protocol 21; upgrade the Herdr client before using this command"),
				report(p, src, lbl, "working")...)
		}},
		{name: "21_socket_resolution", opts: Options{}, run: func(r runner) {
			cfg := r.t.TempDir()
			notRunning := func(socket, attach string) result {
				return serverErr("cli:request", "server_not_running",
					"no herdr server is running at "+jsonPath(socket)+"; run `"+attach+"` to start or attach it")
			}
			r.env = []string{"XDG_CONFIG_HOME=" + cfg}
			// --session beats HERDR_SOCKET_PATH (which points at a live server).
			r.want(notRunning(filepath.Join(cfg, "herdr", "sessions", "s1", "herdr.sock"), "herdr session attach s1"),
				append([]string{"--session", "s1"}, report(p, src, lbl, "working")...)...)
			r.want(notRunning(filepath.Join(cfg, "herdr", "herdr.sock"), "herdr"),
				append(report(p, src, lbl, "working"), "--session=default")...)
			// HERDR_SOCKET_PATH beats HERDR_SESSION.
			r.env = append(r.env, "HERDR_SESSION=s2")
			r.ok(report(p, src, lbl, "working")...)
			// Without it, HERDR_SESSION, then the default socket.
			r.unset = []string{"HERDR_SOCKET_PATH"}
			r.want(notRunning(filepath.Join(cfg, "herdr", "sessions", "s2", "herdr.sock"), "herdr session attach s2"),
				report(p, src, lbl, "working")...)
			r.env = append(r.env, "HERDR_SESSION=default")
			r.want(notRunning(filepath.Join(cfg, "herdr", "herdr.sock"), "herdr"), report(p, src, lbl, "working")...)
			r.unset = []string{"HERDR_SOCKET_PATH", "HERDR_SESSION"}
			r.want(notRunning(filepath.Join(cfg, "herdr", "herdr.sock"), "herdr"), report(p, src, lbl, "working")...)
			// Herdr reads both with std::env::var, so a variable set to ""
			// is a value, not an absence (src/session.rs:80-91,173-181). An
			// empty or bad HERDR_SESSION fails...
			r.unset = []string{"HERDR_SOCKET_PATH"}
			r.env = append(r.env, "HERDR_SESSION=")
			r.want(result{Code: 2, Stderr: "error: session name cannot be empty\nrun 'herdr --help' for usage\n"},
				report(p, src, lbl, "working")...)
			r.env = append(r.env, "HERDR_SESSION=bad/name")
			badEnv := result{Code: 2, Stderr: "error: " + badSessionName + "\nrun 'herdr --help' for usage\n"}
			r.want(badEnv, report(p, src, lbl, "working")...)
			// ...also with a literal "--" in argv, but not when --session
			// names the session (its last value counts) or when
			// HERDR_SOCKET_PATH is set, even to "": then "" is the socket
			// (inferred: connecting to "" fails as not found).
			r.want(badEnv, append(release(p, src, lbl), "--")...)
			r.usage("unknown option: --", "--session", "bad/name", "--session", "s3", "pane", "release-agent", p, "--source", src, "--agent", lbl, "--")
			r.unset = nil
			r.env = append(r.env, "HERDR_SOCKET_PATH=")
			r.want(notRunning("", "herdr"), report(p, src, lbl, "working")...)
			// An override that is the active session's own socket suggests
			// attaching that session (src/cli/server_not_running.rs:42-53).
			own := filepath.Join(cfg, "herdr", "sessions", "s4", "herdr.sock")
			r.env = append(r.env, "HERDR_SESSION=s4", "HERDR_SOCKET_PATH="+own)
			r.want(notRunning(own, "herdr session attach s4"), report(p, src, lbl, "working")...)
		}},
	})
}

// TestChecklistSequence covers checklist items 27-31: sequence high-water marks (§3.3).
func TestChecklistSequence(t *testing.T) {
	runItems(t, []item{
		{name: "27_stale_seq_ignored", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "10")...)
			r.ok(report(p, src, lbl, "blocked", "--seq", "10")...)
			r.ok(report(p, src, lbl, "idle", "--seq", "9")...)
			r.agent(p, lbl, "working")
			r.hwm(p, src, 10, true)
		}},
		{name: "28_higher_seq_applied", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "0")...)
			r.hwm(p, src, 0, true)
			r.ok(report(p, src, lbl, "blocked", "--seq", "11")...)
			r.agent(p, lbl, "blocked")
			r.hwm(p, src, 11, true)
		}},
		{name: "29_unsequenced_after_sequenced_ignored", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r.ok(report(p, src, lbl, "blocked")...)
			r.agent(p, lbl, "working")
		}},
		{name: "30_never_sequenced_applied_in_order", opts: Options{}, on: both, run: func(r runner) {
			for _, s := range []string{"working", "blocked", "working", "idle"} {
				r.ok(report(p, src, lbl, s)...)
			}
			r.agent(p, lbl, "done")
			r.hwm(p, src, 0, false)
		}},
		{name: "31_sources_independent_last_wins", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, "custom:a", "agent-a", "working", "--seq", "5")...)
			r.ok(report(p, "custom:b", "agent-b", "blocked", "--seq", "5")...)
			r.agent(p, "agent-b", "blocked")
			r.hwm(p, "custom:a", 5, true)
			r.hwm(p, "custom:b", 5, true)
			// B releasing does not restore A.
			r.ok(release(p, "custom:b", "agent-b", "--seq", "6")...)
			r.agent(p, "", "unknown")
		}},
	})
}

// TestChecklistRelease covers checklist items 32-38: release (§3.5).
func TestChecklistRelease(t *testing.T) {
	runItems(t, []item{
		{name: "32_release_clears", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r.ok(release(p, src, lbl, "--seq", "2")...)
			r.agent(p, "", "unknown")
			r.want(serverErr("cli:agent:get", "agent_not_found", "agent target w1:p1 not found"), "agent", "get", p)
			r.want(result{Stdout: `{"id":"cli:pane:get","result":{"type":"pane_info","pane":{"pane_id":"w1:p1","terminal_id":"term_6400000000001","workspace_id":"w1","tab_id":"w1:t1","focused":false,"agent_status":"unknown","revision":0}}}` + "\n"},
				"pane", "get", p)
		}},
		{name: "33_hwm_survives_release", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r.ok(release(p, src, lbl, "--seq", "5")...)
			r.hwm(p, src, 5, true)
			r.ok(report(p, src, lbl, "working", "--seq", "5")...)
			r.agent(p, "", "unknown")
			r.ok(report(p, src, lbl, "working", "--seq", "6")...)
			r.agent(p, lbl, "working")
		}},
		{name: "34_unsequenced_release_after_seq_noop", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r.ok(release(p, src, lbl)...)
			r.agent(p, lbl, "working")
		}},
		{name: "35_unsequenced_release_never_seq", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working")...)
			r.ok(release(p, src, lbl)...)
			r.agent(p, "", "unknown")
		}},
		{name: "36_release_by_non_owner_noop", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r.ok(release(p, "custom:other", lbl, "--seq", "2")...)
			r.ok(release(p, src, "other-label", "--seq", "3")...)
			r.ok(release(p, src, "TEST-AGENT", "--seq", "4")...) // labels compare case-sensitively
			r.agent(p, lbl, "working")
			r.hwm(p, src, 1, true) // no-op releases consume no seq
		}},
		{name: "37_second_release_noop", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r.ok(release(p, src, lbl, "--seq", "2")...)
			r.ok(release(p, src, lbl, "--seq", "3")...)
			r.hwm(p, src, 2, true)
			r.agent(p, "", "unknown")
		}},
		{name: "38_official_release_noop", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, "herdr:pi", "pi", "working", "--seq", "1")...)
			r.agent(p, "pi", "working")
			r.ok(release(p, "herdr:pi", "pi", "--seq", "2")...)
			r.ok(release(p, "herdr:pi", "Pi", "--seq", "3")...)
			r.agent(p, "pi", "working")
			r.hwm(p, "herdr:pi", 1, true)
		}},
	})
}

// TestChecklistSourcesAndLabels covers checklist items 39-46: source classes, labels, output fields, messages and sessions (§3.4-3.8, §4).
func TestChecklistSourcesAndLabels(t *testing.T) {
	runItems(t, []item{
		{name: "39_reserved_pair_ignored", opts: Options{}, on: both, run: func(r runner) {
			for _, a := range []string{"claude", "codex", "copilot", "devin", "droid", "qodercli", "cursor", "grok"} {
				r.ok(report(p, "herdr:"+a, a, "working", "--seq", "1")...)
				r.hwm(p, "herdr:"+a, 0, false)
			}
			r.ok(report(p, "herdr:claude", "Claude-Code", "working")...)
			r.agent(p, "", "unknown")
		}},
		{name: "40_session_only_pair_ignored", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, "herdr:hermes", "hermes", "working", "--seq", "1")...)
			r.ok(report(p, "herdr:qwen", "qwen", "working", "--seq", "1")...)
			r.ok(report(p, "herdr:antigravity_cli", "agy", "working", "--seq", "1")...)
			r.ok(report(p, "herdr:antigravity_cli", "antigravity", "working")...)
			r.agent(p, "", "unknown")
		}},
		{name: "41_source_not_validated", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, "herdr:foo", lbl, "working", "--seq", "1")...)
			r.agent(p, lbl, "working")
			r.ok(report(p, "  spaced source!  ", lbl, "blocked", "--seq", "1")...)
			r.agent(p, lbl, "blocked")
			if r.tr == TransportCLI {
				r.hwm(p, "spaced source!", 1, true) // the CLI trims the source
			} else {
				r.hwm(p, "  spaced source!  ", 1, true) // the server does not (§2.4)
			}
			r.ok(report(p, "herdr:claude", "my-claude", "idle", "--seq", "1")...) // not an official pair
			r.agent(p, "my-claude", "done")
		}},
		{name: "42_label_normalisation", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, "Claude-Code", "working")...)
			r.agent(p, "claude", "working")
			r.ok(release(p, src, "CLAUDE.exe")...) // same label after normalisation
			r.agent(p, "", "unknown")
			r.ok(report(p, src, "  My-Agent  ", "working")...)
			r.agent(p, "My-Agent", "working")
			r.ok(release(p, src, "my-agent")...) // verbatim, case-sensitive
			r.agent(p, "My-Agent", "working")
			r.ok(release(p, src, " My-Agent")...)
			r.agent(p, "", "unknown")
		}},
		{name: "43_output_fields", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--message", "m", "--seq", "1")...)
			r.want(result{Stdout: `{"id":"cli:agent:get","result":{"type":"agent_info","agent":{"terminal_id":"term_6400000000001","agent":"test-agent","agent_status":"working","workspace_id":"w1","tab_id":"w1:t1","pane_id":"w1:p1","focused":false,"state_change_seq":1,"revision":0}}}` + "\n"},
				"agent", "get", p)
			r.want(result{Stdout: `{"id":"cli:pane:get","result":{"type":"pane_info","pane":{"pane_id":"w1:p1","terminal_id":"term_6400000000001","workspace_id":"w1","tab_id":"w1:t1","focused":false,"agent":"test-agent","agent_status":"working","revision":0}}}` + "\n"},
				"pane", "get", p)
		}},
		{name: "44_message_never_shown", opts: Options{Panes: []string{p, "w2:p1"}}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "blocked", "--message", "SECRET-MESSAGE")...)
			for _, args := range [][]string{{"pane", "get", p}, {"pane", "list"}, {"agent", "get", p}, {"agent", "list"}} {
				got := r.run(args...)
				if got.Code != 0 || strings.Contains(got.Stdout, "SECRET") || strings.Contains(got.Stdout, "message") || strings.Contains(got.Stdout, "source") {
					r.t.Errorf("%q = %+v", args, got)
				}
			}
		}},
		{name: "45_agent_session_absent", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--agent-session-id", "abc", "--agent-session-path", "/tmp/s.jsonl")...)
			for _, args := range [][]string{{"pane", "get", p}, {"agent", "get", p}, {"agent", "list"}, {"pane", "list"}} {
				if got := r.run(args...); got.Code != 0 || strings.Contains(got.Stdout, "agent_session") {
					r.t.Errorf("%q = %+v", args, got)
				}
			}
		}},
		{name: "46_custom_report_session_noop", opts: Options{}, on: both, run: func(r runner) {
			r.ok("pane", "report-agent-session", p, "--source", src, "--agent", lbl, "--seq", "5",
				"--agent-session-id", "abc", "--session-start-source", "startup")
			r.hwm(p, src, 0, false)
			r.agent(p, "", "unknown")
			r.ok(report(p, src, lbl, "working", "--seq", "1")...) // seq 5 was not consumed
			r.agent(p, lbl, "working")
		}},
	})
}

// TestChecklistDone covers checklist items 47-52: the seen/done model (§3.9).
func TestChecklistDone(t *testing.T) {
	runItems(t, []item{
		{name: "47_done_when_not_in_view", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r.ok(report(p, src, lbl, "idle", "--seq", "2")...)
			r.agent(p, lbl, "done")
			r.ok(report(p, src, lbl, "blocked", "--seq", "3")...)
			r.ok(report(p, src, lbl, "idle", "--seq", "4")...)
			r.agent(p, lbl, "done")
			// unknown -> idle with the same label is a completion too.
			r.ok(report(p, src, lbl, "unknown", "--seq", "5")...)
			r.ok(report(p, src, lbl, "idle", "--seq", "6")...)
			r.agent(p, lbl, "done")
		}},
		{name: "48_idle_when_in_view", opts: Options{Panes: []string{p, "w1:p2"}, InView: []string{p}}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working")...)
			r.ok(report(p, src, lbl, "idle")...)
			r.agent(p, lbl, "idle")
			r.ok(report("w1:p2", src, lbl, "working")...)
			r.ok(report("w1:p2", src, lbl, "idle")...)
			r.agent("w1:p2", lbl, "done")
		}},
		{name: "49_done_survives_reads_and_idle", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working")...)
			r.ok(report(p, src, lbl, "idle")...)
			for _, args := range [][]string{{"pane", "get", p}, {"pane", "list"}, {"agent", "get", p}, {"agent", "list"}} {
				if got := r.run(args...); got.Code != 0 || !strings.Contains(got.Stdout, `"agent_status":"done"`) {
					r.t.Errorf("%q = %+v", args, got)
				}
			}
			r.ok(report(p, src, lbl, "idle")...)
			r.ok(report(p, src, lbl, "idle", "--message", "other")...)
			r.agent(p, lbl, "done")
		}},
		{name: "50_focus_clears_done", opts: Options{Panes: []string{p, "w1:p2", "w1:p3"}}, on: both, run: func(r runner) {
			for _, pane := range []string{p, "w1:p2", "w1:p3"} {
				r.ok(report(pane, src, lbl, "working")...)
				r.ok(report(pane, src, lbl, "idle")...)
				r.agent(pane, lbl, "done")
			}
			// Herdr answers a focus with the agent's info, which the CLI
			// prints (src/app/api/agents.rs:35-42, src/cli/agent.rs:455-470).
			r.want(result{Stdout: `{"id":"cli:agent:focus","result":{"type":"agent_info","agent":{"terminal_id":"term_6400000000001","agent":"test-agent","agent_status":"idle","workspace_id":"w1","tab_id":"w1:t1","pane_id":"w1:p1","focused":false,"state_change_seq":2,"revision":0}}}` + "\n"},
				"agent", "focus", p)
			r.agent(p, lbl, "idle")
			if err := r.h.Focus("w1:p2"); err != nil {
				r.t.Fatal(err)
			}
			r.agent("w1:p2", lbl, "idle")
			if err := r.h.SetInView("w1:p3", true); err != nil {
				r.t.Fatal(err)
			}
			r.agent("w1:p3", lbl, "idle")
			r.want(serverErr("cli:agent:focus", "agent_not_found", "agent target w9:p9 not found"), "agent", "focus", "w9:p9")
		}},
		{name: "51_non_idle_after_done", opts: Options{}, on: both, run: func(r runner) {
			for _, s := range []string{"working", "blocked", "unknown"} {
				r.ok(report(p, src, lbl, "working")...)
				r.ok(report(p, src, lbl, "idle")...)
				r.agent(p, lbl, "done")
				r.ok(report(p, src, lbl, s)...)
				r.agent(p, lbl, s)
			}
		}},
		{name: "52_first_idle_is_idle", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "idle")...)
			r.agent(p, lbl, "idle")
			// Also after a release: no label before, so no completion.
			r.ok(release(p, src, lbl)...)
			r.ok(report(p, src, lbl, "idle")...)
			r.agent(p, lbl, "idle")
		}},
	})
}

// TestChecklistLifetime covers checklist items 53-57: no expiry, official sessions, restarts (§3.2, §3.10).
func TestChecklistLifetime(t *testing.T) {
	runItems(t, []item{
		{name: "53_54_state_persists_after_reporter_exits", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			// The reporting process has exited; nothing expires the state.
			for range 3 {
				if got := r.run("agent", "get", p); got.Code != 0 {
					r.t.Errorf("agent get = %+v", got)
				}
			}
			r.agent(p, lbl, "working")
			if got := r.run("agent", "list"); !strings.Contains(got.Stdout, `"agent":"test-agent","agent_status":"working"`) {
				r.t.Errorf("agent list = %+v", got)
			}
		}},
		{name: "56_official_session_blocks_custom", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, "herdr:claude", "claude", "working", "--agent-session-id", "sess-1")...)
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r.agent(p, "", "unknown")
			r.hwm(p, src, 0, false)
			// An invalid session id is dropped, so it does not block.
			r2 := newRunner(r.t, Options{}).on(r.tr)
			r2.ok(report(p, "herdr:claude", "claude", "working", "--agent-session-id", "bad\nid")...)
			r2.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r2.agent(p, lbl, "working")
			// A full-lifecycle authority with a session holds the pane the
			// same way: a custom report exits 0 and changes nothing.
			r3 := newRunner(r.t, Options{}).on(r.tr)
			r3.ok(report(p, "herdr:pi", "pi", "working", "--seq", "5", "--agent-session-id", "abc")...)
			r3.agent(p, "pi", "working")
			r3.ok(report(p, src, lbl, "blocked", "--seq", "10")...)
			r3.agent(p, "pi", "working")
			r3.hwm(p, src, 0, false)
			// The same pair may go on reporting.
			r3.ok(report(p, "herdr:pi", "pi", "idle", "--seq", "6", "--agent-session-id", "abc")...)
			r3.agent(p, "pi", "done") // idle after working, not in view
			// Without a session, a full-lifecycle authority does not block.
			r4 := newRunner(r.t, Options{}).on(r.tr)
			r4.ok(report(p, "herdr:omp", "omp", "working", "--seq", "5")...)
			r4.ok(report(p, src, lbl, "blocked", "--seq", "10")...)
			r4.agent(p, lbl, "blocked")
		}},
		{name: "57_restart_forgets_authority_and_hwm", opts: Options{}, on: both, run: func(r runner) {
			r.ok(report(p, src, lbl, "working", "--seq", "100")...)
			if err := r.h.StopServer(); err != nil {
				r.t.Fatal(err)
			}
			if _, err := r.h.Agent(p); err != ErrServerNotRunning {
				r.t.Errorf("Agent with server stopped: %v", err)
			}
			if err := r.h.StartServer(); err != nil {
				r.t.Fatal(err)
			}
			r.agent(p, "", "unknown")
			r.hwm(p, src, 0, false)
			r.ok(report(p, src, lbl, "blocked", "--seq", "1")...)
			r.agent(p, lbl, "blocked")
		}},
	})
}

// TestChecklistProbes covers checklist items 58-60: status, version and schema, no timeout (§6).
func TestChecklistProbes(t *testing.T) {
	runItems(t, []item{
		{name: "58_status_json", opts: Options{}, run: func(r runner) {
			bin := jsonPath(r.h.Bin)
			sock := jsonPath(r.h.Socket)
			client := `{"version":"0.8.2","channel":"stable","protocol":20,"binary":"` + bin + `","session":null}`
			running := `{"status":"running","running":true,"version":"0.8.2","protocol":20,"capabilities":{"live_handoff":true,"detached_server_daemon":false},"compatible":true,"socket":"` + sock + `","session":null,"restart_needed":false}`
			r.want(result{Stdout: `{"client":` + client + `,"server":` + running + `,"update":{"restart_needed":false}}` + "\n"}, "status", "--json")
			r.want(result{Stdout: running + "\n"}, "status", "server", "--json")
			r.want(result{Stdout: client + "\n"}, "status", "client", "--json")
			if err := r.h.SetFault(Fault{ProtocolMismatch: 19}); err != nil {
				r.t.Fatal(err)
			}
			// compatible compares protocols, restart_needed versions, and
			// session is the active session (src/cli/status.rs:255-305,
			// src/session.rs: active_name).
			r.env = []string{"HERDR_SESSION=work"}
			r.want(result{Stdout: `{"status":"running","running":true,"version":"0.8.2","protocol":19,"capabilities":{"live_handoff":true,"detached_server_daemon":false},"compatible":false,"socket":"` + sock + `","session":"work","restart_needed":false}` + "\n"},
				"status", "server", "--json")
			r.env = nil
			if err := r.h.StopServer(); err != nil {
				r.t.Fatal(err)
			}
			r.want(result{Stdout: `{"status":"not_running","running":false,"version":null,"protocol":null,"capabilities":null,"compatible":null,"socket":"` + sock + `","session":null,"restart_needed":false}` + "\n"},
				"status", "server", "--json")
		}},
		{name: "59_version_and_schema", opts: Options{}, run: func(r runner) {
			r.want(result{Stdout: "herdr 0.8.2\n"}, "--version")
			if got := r.run("api", "schema", "--json"); got.Code != 0 || !strings.Contains(got.Stdout, `"protocol": 20`) {
				r.t.Errorf("api schema = %+v", got)
			}
		}},
		{name: "60_no_timeout_hang", opts: Options{}, run: func(r runner) {
			testHang(r, false)
		}},
	})
}

// jsonPath is path as it appears inside a JSON string.
func jsonPath(path string) string {
	if runtime.GOOS == "windows" {
		return strings.ReplaceAll(path, `\`, `\\`)
	}
	return path
}

// badSessionName is Herdr's error for a session name with a character
// outside [A-Za-z0-9._-] (src/session.rs, validate_name).
const badSessionName = "session name may only contain ASCII letters, numbers, '.', '_' and '-'"
