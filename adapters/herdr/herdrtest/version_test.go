package herdrtest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVersion093CLI checks the CLI differences of 0.9.x that HERDR-0.9.md
// lists under "CLI grammar" and "Resume argv", against 0.8.2's.
func TestVersion093CLI(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		v082 result
		v093 result
	}{
		{"options_before_the_pane",
			[]string{"pane", "report-agent", "--source", src, "--agent", lbl, "--state", "working", p},
			result{Code: 2, Stderr: "unknown option: " + src + "\n"}, result{}},
		{"options_around_the_pane",
			[]string{"pane", "report-agent", "--source", src, p, "--agent", lbl, "--state", "working"},
			result{Code: 2, Stderr: "unknown option: " + src + "\n"}, result{}},
		{"equals_form",
			[]string{"pane", "report-agent", p, "--source=" + src, "--agent=" + lbl, "--state=working", "--seq=4"},
			result{Code: 2, Stderr: "unknown option: --source=" + src + "\n"}, result{}},
		{"equals_form_checks_values",
			[]string{"pane", "report-agent", p, "--source", src, "--agent", lbl, "--state=done"},
			result{Code: 2, Stderr: "unknown option: --state=done\n"},
			result{Code: 1, Stderr: "Error: Custom { kind: Other, error: \"invalid pane agent state: done (expected idle, working, blocked, or unknown)\" }\n"}},
		{"unknown_equals_option",
			[]string{"pane", "report-agent", p, "--bogus=1"},
			result{Code: 2, Stderr: "unknown option: --bogus=1\n"}, result{Code: 2, Stderr: "unknown option: --bogus=1\n"}},
		{"second_positional",
			[]string{"pane", "report-agent", p, "w1:p2", "--source", src, "--agent", lbl, "--state", "idle"},
			result{Code: 2, Stderr: "unknown option: w1:p2\n"}, result{Code: 2, Stderr: "unknown option: w1:p2\n"}},
		{"no_pane",
			[]string{"pane", "report-agent-session", "--source", src, "--agent", lbl},
			result{Code: 2, Stderr: "unknown option: " + src + "\n"}, result{Code: 2, Stderr: usageReportAgentSession + "\n"}},
		{"release_keeps_the_082_grammar",
			[]string{"pane", "release-agent", p, "--source=" + src, "--agent", lbl},
			result{Code: 2, Stderr: "unknown option: --source=" + src + "\n"}, result{Code: 2, Stderr: "unknown option: --source=" + src + "\n"}},
		{"dashdash_resume_argv_needs_the_pane_held",
			append(report(p, src, lbl, "working", "--seq", "1"), "--", "mychat", "--resume", "abc"),
			result{Code: 2, Stderr: "unknown option: --\n"},
			serverErr("cli:request", "resume_not_accepted", "resume_argv requires the reporter to hold the pane; report its state with pane.report_agent first")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, v := range []struct {
				version string
				want    result
			}{{Version082, tc.v082}, {Version093, tc.v093}} {
				r := newRunner(t, Options{Version: v.version})
				if diff := cmp.Diff(r.run(tc.args...), v.want); diff != "" {
					t.Errorf("%s: herdr %q (-got +want):\n%s", v.version, tc.args, diff)
				}
			}
		})
	}
}

// TestVersion093Probes: every way of asking says 0.9.3 and protocol 22.
func TestVersion093Probes(t *testing.T) {
	r := newRunner(t, Options{Version: Version093})
	r.want(result{Stdout: "herdr 0.9.3\n"}, "--version")
	if got := r.run("status", "server", "--json"); !strings.Contains(got.Stdout, `"version":"0.9.3","protocol":22,`) || !strings.Contains(got.Stdout, `"compatible":true`) {
		t.Errorf("status = %+v", got)
	}
	if got := r.run("api", "schema", "--json"); !strings.Contains(got.Stdout, `"protocol": 22`) {
		t.Errorf("api schema = %+v", got)
	}
	if r.h.Version() != Version093 || r.h.Protocol() != 22 {
		t.Errorf("Version, Protocol = %s, %d", r.h.Version(), r.h.Protocol())
	}
	// A 0.9.3 client refuses a protocol 20 server, as a 0.8.2 client
	// refuses 22.
	if err := r.h.SetFault(Fault{ProtocolMismatch: 20}); err != nil {
		t.Fatal(err)
	}
	if got := r.run(report(p, src, lbl, "idle")...); got.Code != 1 ||
		!strings.Contains(got.Stderr, `"code":"protocol_mismatch","message":"client protocol 22 is newer than server protocol 20;`) {
		t.Errorf("report against protocol 20 = %+v", got)
	}
	r082 := newRunner(t, Options{})
	if err := r082.h.SetFault(Fault{ProtocolMismatch: 22}); err != nil {
		t.Fatal(err)
	}
	r082.want(serverErr("cli:request", "protocol_mismatch",
		"client protocol 20 is older than server protocol 22; upgrade the Herdr client before using this command"), report(p, src, lbl, "idle")...)
}

// TestResume checks Herdr 0.9.2's resume argv on both transports
// (HERDR-0.9.md "Resume argv"), and that 0.8.2 ignores the socket param.
func TestResume(t *testing.T) {
	withResume := func(args []string, argv ...string) []string {
		return append(append([]string(nil), args...), append([]string{"--"}, argv...)...)
	}
	for _, tr := range both {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			t.Run("accepted_once_the_pane_is_held", func(t *testing.T) {
				r := newRunner(t, Options{Version: Version093}).on(tr)
				r.want(serverErr("cli:request", "resume_not_accepted", "resume_argv requires the reporter to hold the pane; report its state with pane.report_agent first"),
					withResume(report(p, src, lbl, "working", "--seq", "1"), "mychat", "--resume", "abc")...)
				r.agent(p, "", "unknown") // nothing of it applied
				r.hwm(p, src, 0, false)
				r.ok(report(p, src, lbl, "working", "--seq", "1")...)
				r.ok(withResume(report(p, src, lbl, "idle", "--seq", "2"), "mychat", "--resume", "abc")...)
				r.agent(p, lbl, "done")
				argv, ok := r.h.ResumeArgv(p)
				if diff := cmp.Diff(argv, []string{"mychat", "--resume", "abc"}); !ok || diff != "" {
					t.Errorf("ResumeArgv (-got +want):\n%s", diff)
				}
				// Another reporter does not hold it.
				r.want(serverErr("cli:request", "resume_not_accepted", "resume_argv requires the reporter to hold the pane; report its state with pane.report_agent first"),
					withResume(report(p, "custom:other", lbl, "working", "--seq", "9"), "other")...)
				// Herdr keeps it for after a restart.
				if err := r.h.StopServer(); err != nil {
					t.Fatal(err)
				}
				if err := r.h.StartServer(); err != nil {
					t.Fatal(err)
				}
				if argv, _ := r.h.ResumeArgv(p); len(argv) != 3 {
					t.Errorf("ResumeArgv after a restart = %q", argv)
				}
				calls, _ := r.h.Calls()
				if got := calls[2].ResumeArgv(); !cmp.Equal(got, []string{"mychat", "--resume", "abc"}) || calls[2].Transport != tr {
					t.Errorf("call %+v: ResumeArgv %q", calls[2], got)
				}
			})
			t.Run("invalid_argv_applies_nothing", func(t *testing.T) {
				for _, tc := range []struct {
					name   string
					source string
					argv   []string
				}{
					{"path_in_first_word", src, []string{"./mychat"}},
					{"leading_dash", src, []string{"-x"}},
					{"apostrophe", src, []string{"mychat", "it's"}},
					{"control_character", src, []string{"mychat", "a\tb"}},
					{"too_many_words", src, append([]string{"mychat"}, strings.Fields(strings.Repeat("a ", 64))...)},
					{"too_many_bytes", src, []string{"mychat", strings.Repeat("x", 8192)}},
					{"herdr_source", "herdr:mine", []string{"mychat"}},
				} {
					r := newRunner(t, Options{Version: Version093}).on(tr)
					r.ok(report(p, tc.source, lbl, "working", "--seq", "1")...)
					got := r.run(withResume(report(p, tc.source, lbl, "blocked", "--seq", "2"), tc.argv...)...)
					if got.Code != 1 || !strings.HasPrefix(got.Stderr, `{"id":"cli:request","error":{"code":"invalid_resume_argv","message":"invalid resume_argv: `) {
						t.Errorf("%s: %+v", tc.name, got)
					}
					r.agent(p, lbl, "working")
					r.hwm(p, tc.source, 1, true)
				}
			})
		})
	}
	t.Run("082_ignores_the_socket_param", func(t *testing.T) {
		r := newRunner(t, Options{}).on(TransportSocket)
		r.ok(append(report(p, src, lbl, "working", "--seq", "1"), "--", "./not-even-valid")...)
		r.agent(p, lbl, "working")
		if _, ok := r.h.ResumeArgv(p); ok {
			t.Error("0.8.2 kept a resume argv")
		}
	})
}
