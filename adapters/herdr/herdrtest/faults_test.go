package herdrtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
)

// waitCalls waits until cond holds for h's calls: for events in another
// process, seen through the log the fake binary writes.
func waitCalls(t *testing.T, h *Herdr, cond func([]Call) bool) []Call {
	t.Helper()
	calls, err := h.WaitCalls(t.Context(), cond)
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

func lastHung(calls []Call) bool { return len(calls) > 0 && calls[len(calls)-1].Hung }

// testHang starts a hanging invocation, checks that it neither exits nor
// blocks other invocations, then stops it (with SIGTERM when term, which a
// HangIgnoreTERM process survives).
func testHang(r runner, ignoreTERM bool) {
	t, h := r.t, r.h
	if err := h.SetFault(Fault{Hang: true, HangIgnoreTERM: ignoreTERM}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(h.Bin, report(h.Pane, src, lbl, "working")...)
	cmd.Env = append(os.Environ(), h.Env()...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-done
	}()
	waitCalls(t, h, lastHung)
	if err := h.SetFault(Fault{}); err != nil {
		t.Fatal(err)
	}
	// The hung process holds no lock: other invocations proceed.
	r.ok(report(h.Pane, src, lbl, "blocked")...)
	r.agent(h.Pane, lbl, "blocked")
	if ignoreTERM {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("hanging herdr exited: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	calls, err := h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	if c := calls[0]; !c.Hung || !c.Unfinished || c.Exit != -1 || !c.End.IsZero() {
		t.Errorf("hung call logged as %+v", c)
	}
}

func TestFaults(t *testing.T) {

	cases := []struct {
		name  string
		fault Fault
		run   func(r runner)
	}{
		{"hang", Fault{}, func(r runner) { testHang(r, false) }},
		{"hang_ignore_term", Fault{}, func(r runner) {
			if runtime.GOOS == "windows" {
				r.t.Skip("no SIGTERM on Windows")
			}
			testHang(r, true)
		}},
		{"grandchild", Fault{Grandchild: true}, func(r runner) {
			cmd := exec.Command(r.h.Bin, report(p, src, lbl, "working")...)
			cmd.Env = append(os.Environ(), r.h.Env()...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.WaitDelay = 100 * time.Millisecond
			err := cmd.Run()
			if !errors.Is(err, exec.ErrWaitDelay) {
				r.t.Errorf("Run = %v, want exec.ErrWaitDelay", err)
			}
			calls, err := r.h.Calls()
			if err != nil {
				r.t.Fatal(err)
			}
			if len(calls) != 1 || calls[0].GrandchildPID == 0 || calls[0].Exit != 0 {
				r.t.Fatalf("calls = %+v", calls)
			}
			r.agent(p, lbl, "working") // the command itself ran normally
			// Close (via StartT's cleanup) kills the grandchild.
		}},
		{"server_not_running", Fault{ServerNotRunning: true}, func(r runner) {
			r.want(serverErr("cli:request", "server_not_running",
				"no herdr server is running at "+jsonPath(r.h.Socket)+"; run `herdr` to start or attach it"),
				report(p, src, lbl, "working")...)
			r.want(serverErr("cli:agent:get", "server_not_running",
				"no herdr server is running at "+jsonPath(r.h.Socket)+"; run `herdr` to start or attach it"),
				"agent", "get", p)
			if got := r.run("status", "--json"); got.Code != 0 || !strings.Contains(got.Stdout, `"status":"not_running"`) {
				r.t.Errorf("status = %+v", got)
			}
			r.want(result{Stdout: "herdr 0.8.2\n"}, "--version")
		}},
		{"protocol_mismatch", Fault{ProtocolMismatch: 19}, func(r runner) {
			for _, args := range [][]string{report(p, src, lbl, "working"), release(p, src, lbl), {"agent", "get", p}, {"pane", "list"}} {
				if got := r.run(args...); got.Code != 1 || !strings.Contains(got.Stderr, `"code":"protocol_mismatch"`) {
					r.t.Errorf("%q = %+v", args, got)
				}
			}
			r.agent(p, "", "unknown")
		}},
		{"exit_usage", Fault{ExitUsage: true}, func(r runner) {
			r.usage(usageReportAgent, report(p, src, lbl, "working")...)
			r.agent(p, "", "unknown")
		}},
		{"sleep", Fault{SleepMs: 50}, func(r runner) {
			r.ok(report(p, src, lbl, "working")...)
			calls, err := r.h.Calls()
			if err != nil {
				r.t.Fatal(err)
			}
			if d := calls[0].End.Sub(calls[0].Start); d < 50*time.Millisecond {
				r.t.Errorf("call took %v, want at least the 50ms sleep", d)
			}
		}},
		{"sleep_killed", Fault{SleepMs: 60_000}, func(r runner) {
			// A call killed before it finishes is still logged: its start
			// record stays, and Calls lists it as unfinished.
			cmd := exec.Command(r.h.Bin, report(p, src, lbl, "working", "--seq", "7")...)
			cmd.Env = append(os.Environ(), r.h.Env()...)
			if err := cmd.Start(); err != nil {
				r.t.Fatal(err)
			}
			waitCalls(r.t, r.h, func(calls []Call) bool { return len(calls) == 1 })
			if err := cmd.Process.Kill(); err != nil {
				r.t.Fatal(err)
			}
			_ = cmd.Wait()
			if err := r.h.SetFault(Fault{}); err != nil {
				r.t.Fatal(err)
			}
			r.ok(report(p, src, lbl, "blocked", "--seq", "8")...)
			calls, err := r.h.Calls()
			if err != nil {
				r.t.Fatal(err)
			}
			if len(calls) != 2 {
				r.t.Fatalf("calls = %+v, want the killed one and the next", calls)
			}
			killed, next := calls[0], calls[1]
			if !killed.Unfinished || killed.Hung || killed.Exit != -1 || !killed.End.IsZero() ||
				killed.PID != cmd.Process.Pid || killed.Command != "pane report-agent" || killed.Env["HERDR_SOCKET_PATH"] != r.h.Socket {
				r.t.Errorf("killed call logged as %+v", killed)
			}
			if seq, _ := killed.Flag("seq"); seq != "7" {
				r.t.Errorf("killed call's --seq %q", seq)
			}
			if next.Unfinished || next.Exit != 0 || next.End.IsZero() {
				r.t.Errorf("finished call logged as %+v", next)
			}
			r.agent(p, lbl, "blocked")
		}},
		{"spew", Fault{SpewBytes: 1 << 20}, func(r runner) {
			got := r.run(report(p, src, lbl, "working")...)
			if got.Code != 0 || len(got.Stdout) != 1<<20 || len(got.Stderr) != 1<<20 {
				r.t.Errorf("spew: exit %d, %d stdout bytes, %d stderr bytes", got.Code, len(got.Stdout), len(got.Stderr))
			}
			calls, err := r.h.Calls()
			if err != nil {
				r.t.Fatal(err)
			}
			if calls[0].Stdout != 1<<20 || calls[0].Stderr != 1<<20 {
				r.t.Errorf("logged %d/%d bytes", calls[0].Stdout, calls[0].Stderr)
			}
			r.agent(p, lbl, "working")
		}},
		{"fail_first", Fault{FailFirst: 2}, func(r runner) {
			unavailable := serverErr("cli:request", "server_unavailable", "server is shutting down")
			r.want(result{Stdout: "herdr 0.8.2\n"}, "--version")            // not counted
			r.usage("missing required --source", "pane", "report-agent", p) // nor are argv errors
			r.want(unavailable, report(p, src, lbl, "working", "--seq", "1")...)
			r.want(unavailable, release(p, src, lbl, "--seq", "2")...)
			r.agent(p, "", "unknown")
			r.hwm(p, src, 0, false)
			r.ok(report(p, src, lbl, "working", "--seq", "1")...)
			r.agent(p, lbl, "working")
			if err := r.h.SetFault(Fault{FailFirst: 1}); err != nil {
				r.t.Fatal(err)
			}
			r.want(unavailable, report(p, src, lbl, "blocked", "--seq", "2")...)
			r.ok(report(p, src, lbl, "blocked", "--seq", "2")...)
			r.agent(p, lbl, "blocked")
		}},
		{"fail_all", Fault{FailAll: true}, func(r runner) {
			// Every request fails, from either transport, reads and pings
			// included (herdremu -fault fail): nothing answers as working.
			for _, tr := range both {
				rt := r.on(tr)
				for _, tc := range []struct {
					id   string
					args []string
				}{
					{"cli:request", report(p, src, lbl, "working", "--seq", "1")},
					{"cli:request", release(p, src, lbl, "--seq", "2")},
					{"cli:agent:get", []string{"agent", "get", p}},
					{"cli:pane:get", []string{"pane", "get", p}},
					{"cli:pane:list", []string{"pane", "list"}},
				} {
					rt.want(serverErr(tc.id, "server_unavailable", "server is shutting down"), tc.args...)
				}
			}
			if got := r.run("status", "server", "--json"); got.Code != 0 || !strings.Contains(got.Stdout, `"status":"not_running"`) {
				r.t.Errorf("status with every request failing = %+v, want the server not running", got)
			}
			var ue *wire.Error
			if _, err := wire.Ping(r.t.Context(), r.h.Socket); !errors.As(err, &ue) || ue.Code != wire.CodeServerUnavailable {
				r.t.Errorf("ping = %v, want server_unavailable", err)
			}
			r.agent(p, "", "unknown")
			r.hwm(p, src, 0, false)
			calls, err := r.h.Calls()
			if err != nil {
				r.t.Fatal(err)
			}
			for _, c := range calls {
				if c.Applied || c.Code != "" && c.Code != string(wire.CodeServerUnavailable) {
					r.t.Errorf("%s over %s: applied %v, code %q", c.Command, c.Transport, c.Applied, c.Code)
				}
			}
		}},
		{"garbage", Fault{Garbage: true}, func(r runner) {
			got := r.run(report(p, src, lbl, "working")...)
			if got.Code != 1 || got.Stdout != "" || json.Valid([]byte(got.Stderr)) || utf8.ValidString(got.Stderr) {
				r.t.Errorf("garbage = %+v", got)
			}
			r.agent(p, "", "unknown")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRunner(t, Options{})
			if err := r.h.SetFault(tc.fault); err != nil {
				t.Fatal(err)
			}
			tc.run(r)
		})
	}
}
