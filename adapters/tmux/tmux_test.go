package tmux

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/internal/cmdrun"
)

func TestReportSetsPaneOptions(t *testing.T) {
	s := startServer(t, nil)
	pane := s.panes(t)[0]
	other := s.splitPane(t)
	d := &diags{}
	a := openT(t, params(s.paneEnv(pane), "", d))
	steps := []struct {
		name string
		r    adapter.Report
		want map[string]string
	}{
		{"working", working, want("working", "")},
		{"blocked on approval", blocked, want("blocked", "Waiting for approval")},
		{"blocked on input", adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForInput},
			want("blocked", "Waiting for input")},
		{"working with a workflow needing attention",
			adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting, Message: adapter.MessageWorkflowNeedsAttention},
			want("working", "Workflow needs attention")},
		{"idle", idle, want("idle", "")},
	}
	for _, step := range steps {
		if err := a.Report(t.Context(), step.r); err != nil {
			t.Fatalf("%s: Report: %v", step.name, err)
		}
		if diff := cmp.Diff(s.options(t, pane), step.want); diff != "" {
			t.Errorf("%s: pane options (-got +want):\n%s", step.name, diff)
		}
		if got := strings.TrimSpace(s.run(t, "show-options", "-p", "-t", pane, "-v", "@panestate_state")); got != step.want["@panestate_state"] {
			t.Errorf("%s: show-options -v @panestate_state = %q", step.name, got)
		}
		if diff := cmp.Diff(s.options(t, other), map[string]string{}); diff != "" {
			t.Errorf("%s: the other pane's options changed (-got +want):\n%s", step.name, diff)
		}
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if diff := cmp.Diff(s.options(t, pane), map[string]string{}); diff != "" {
		t.Errorf("after Release, pane options (-got +want):\n%s", diff)
	}
	// Nothing reached the pane's title or the window/session options.
	if title := strings.TrimSpace(s.run(t, "display-message", "-p", "-t", pane, "#{pane_title}")); strings.Contains(title, "working") || strings.Contains(title, "idle") {
		t.Errorf("pane title %q shows the state", title)
	}
	for _, scope := range [][]string{{"-w"}, {}, {"-g"}} {
		out := s.run(t, append(append([]string{"show-options"}, scope...), "-t", pane)...)
		if strings.Contains(out, "@panestate") {
			t.Errorf("show-options %v has panestate options:\n%s", scope, out)
		}
	}
	if got := d.all(); len(got) != 0 {
		t.Errorf("diagnostics %v; want none", got)
	}
	if e := a.Details(); e["last_state"] != "released" || e["last_op"] != "release" {
		t.Errorf("Details last_state, last_op = %q, %q; want released, release", e["last_state"], e["last_op"])
	}
}

func TestReportCustomPrefix(t *testing.T) {
	s := startServer(t, nil)
	pane := s.panes(t)[0]
	a := openT(t, params(s.paneEnv(pane), `{"prefix":"agent-2"}`, nil))
	if err := a.Report(t.Context(), blocked); err != nil {
		t.Fatal(err)
	}
	wantOpts := map[string]string{"@agent-2_state": "blocked", "@agent-2_message": "Waiting for approval", "@agent-2_agent": "chat"}
	if diff := cmp.Diff(s.options(t, pane), wantOpts); diff != "" {
		t.Errorf("pane options (-got +want):\n%s", diff)
	}
	// The names work in formats as the docs show them.
	got := s.run(t, "display-message", "-p", "-t", pane, "#{?#{==:#{@agent-2_state},blocked},B,-}")
	if strings.TrimSpace(got) != "B" {
		t.Errorf("format condition on @agent-2_state = %q; want B", got)
	}
}

func TestConformance(t *testing.T) {
	s := startServer(t, nil)
	pane := s.panes(t)[0]
	adaptertest.Run(t, func(t *testing.T) adapter.Adapter {
		a, err := Driver{}.Open(t.Context(), params(s.paneEnv(pane), "", nil))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return a
	})
}

func TestServerKilledMidSession(t *testing.T) {
	for _, kill := range []struct {
		name string
		f    func(t *testing.T, s *server)
	}{
		{"kill-server", func(t *testing.T, s *server) { s.run(t, "kill-server") }},
		{"SIGKILL", func(t *testing.T, s *server) {
			pid, err := strconv.Atoi(s.pid)
			if err != nil {
				t.Fatal(err)
			}
			p, err := os.FindProcess(pid)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Kill(); err != nil {
				t.Fatal(err)
			}
			// The server is not our child: wait until its socket refuses.
			eventually(t, "the killed server to refuse connections", func() bool {
				_, err := s.try("list-sessions")
				return err != nil
			})
		}},
	} {
		t.Run(kill.name, func(t *testing.T) { testServerKilled(t, kill.f) })
	}
}

func testServerKilled(t *testing.T, kill func(*testing.T, *server)) {
	s := startServer(t, nil)
	pane := s.panes(t)[0]
	d := &diags{}
	a := openT(t, params(s.paneEnv(pane), "", d))
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatalf("Report: %v", err)
	}
	kill(t, s)
	// Right after kill-server, a client may still reach the exiting
	// server (server_exited); then the socket refuses (server_not_running)
	// or is gone (connect_failed).
	noServer := map[string]bool{CodeServerExited: true, CodeServerNotRunning: true, CodeConnectFailed: true}
	for _, r := range []adapter.Report{blocked, idle} {
		err := a.Report(t.Context(), r)
		ce, ok := errorsAs[*cmdrun.Error](err)
		if !ok || ce.Kind != adapter.KindProtocolRejected || !noServer[ce.Code] {
			t.Fatalf("Report after kill-server = %v; want protocol_rejected with a no-server code", err)
		}
		t.Logf("Report after kill-server: %v", err)
	}
	got := d.all()
	if len(got) != 1 || got[0].Kind != adapter.KindProtocolRejected {
		t.Fatalf("diagnostics %v; want one protocol_rejected (once per claim)", got)
	}
	if !strings.HasPrefix(got[0].Detail, "report: exit 1: ") || strings.Contains(got[0].Detail, s.sock) {
		t.Errorf("diagnostic %q: want \"report: exit 1: <code>\", without tmux's own words", got[0].Detail)
	}
	if e := a.Details(); e["diag.protocol_rejected"] != "2" {
		t.Errorf("Details diag.protocol_rejected = %q; want 2 (both failures counted)", e["diag.protocol_rejected"])
	}
	// A release finds nothing to unset: the options died with the server.
	if err := a.Release(t.Context()); err != nil {
		t.Errorf("Release after kill-server = %v; want nil", err)
	}
}

func TestPaneClosed(t *testing.T) {
	s := startServer(t, nil)
	pane := s.panes(t)[0]
	gone := s.splitPane(t)
	d := &diags{}
	a := openT(t, params(s.paneEnv(gone), "", d))
	if err := a.Report(t.Context(), working); err != nil {
		t.Fatalf("Report: %v", err)
	}
	s.run(t, "kill-pane", "-t", gone)
	err := a.Report(t.Context(), blocked)
	ce, ok := errorsAs[*cmdrun.Error](err)
	if !ok || ce.Code != CodePaneNotFound {
		t.Fatalf("Report to a closed pane = %v; want %s", err, CodePaneNotFound)
	}
	wantDiags := []adapter.Diagnostic{{Adapter: "tmux", Kind: adapter.KindProtocolRejected, Detail: "report: exit 1: pane_not_found"}}
	if diff := cmp.Diff(d.all(), wantDiags); diff != "" {
		t.Errorf("diagnostics (-got +want):\n%s", diff)
	}
	if err := a.Release(t.Context()); err != nil {
		t.Errorf("Release of a closed pane = %v; want nil (nothing left to unset)", err)
	}
	if diff := cmp.Diff(s.options(t, pane), map[string]string{}); diff != "" {
		t.Errorf("the surviving pane got options (-got +want):\n%s", diff)
	}
	// After a release, a new claim reports its diagnostics afresh.
	_ = a.Report(t.Context(), idle)
	if n := len(d.all()); n != 2 {
		t.Errorf("%d diagnostics after a new claim failed; want 2", n)
	}
}

func TestHungTmux(t *testing.T) {
	// A tmux that ignores SIGTERM and never answers: every call is killed at
	// the deadline, the caller gets the timeout, and one diagnostic says so.
	env := adapter.Env{"TMUX=/tmp/s,1,0", "TMUX_PANE=%0", "PATH=" + fakeDir(t), "XDG_STATE_HOME=" + t.TempDir(), fakeModeEnv + "=hang"}
	d := &diags{}
	a := openT(t, params(env, `{"timeout":"200ms"}`, d))
	for _, call := range []struct {
		name string
		f    func(ctx context.Context) error
	}{
		{"Report", func(ctx context.Context) error { return a.Report(ctx, working) }},
		{"Report again", func(ctx context.Context) error { return a.Report(ctx, blocked) }},
		{"Release", a.Release},
	} {
		start := time.Now()
		err := call.f(t.Context())
		took := time.Since(start)
		ce, ok := errorsAs[*cmdrun.Error](err)
		if !ok || ce.Kind != adapter.KindTimeout {
			t.Fatalf("%s = %v; want a timeout", call.name, err)
		}
		// 200ms deadline plus the 500ms WaitDelay at most; the fake would
		// otherwise sleep an hour.
		if limit := 5 * time.Second; took > limit {
			t.Errorf("%s took %v; want about the 200ms deadline (limit %v)", call.name, took, limit)
		}
	}
	wantDiags := []adapter.Diagnostic{{Adapter: "tmux", Kind: adapter.KindTimeout, Detail: "report: killed at the 200ms deadline"}}
	if diff := cmp.Diff(d.all(), wantDiags); diff != "" {
		t.Errorf("diagnostics (-got +want):\n%s", diff)
	}
}

func TestCloseKillsHungCall(t *testing.T) {
	started := filepath.Join(t.TempDir(), "started")
	env := adapter.Env{"TMUX=/tmp/s,1,0", "TMUX_PANE=%0", "PATH=" + fakeDir(t), "XDG_STATE_HOME=" + t.TempDir(), fakeModeEnv + "=hang", fakeLogEnv + "=" + started}
	d := &diags{}
	a := openT(t, params(env, `{"timeout":"60s"}`, d))
	done := make(chan error, 1)
	go func() { done <- a.Report(context.Background(), working) }()
	// The fake tmux is another process: wait until it runs, so that Close
	// meets a call in flight rather than one not yet started.
	eventually(t, "the hung tmux to start", func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	// Close waits for the in-flight call, which it kills; with a 60 s
	// deadline only the kill can bring both back.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := a.Close(ctx); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if err := <-done; !errors.Is(err, adapter.ErrClosed) {
		t.Errorf("Report interrupted by Close = %v; want ErrClosed", err)
	}
	if got := d.all(); len(got) != 0 {
		t.Errorf("diagnostics %v; want none for a call Close killed", got)
	}
}

func TestFailingTmuxNeverLogsItsOutput(t *testing.T) {
	// The fake fails as a client whose server is gone, naming a socket
	// that nothing of the adapter's may repeat: not the error, not a
	// diagnostic, not the log at its most verbose.
	env := adapter.Env{"TMUX=/tmp/s,1,0", "TMUX_PANE=%0", "PATH=" + fakeDir(t), "XDG_STATE_HOME=" + t.TempDir(), fakeModeEnv + "=fail"}
	d := &diags{}
	var log strings.Builder
	p := params(env, "", d)
	p.Logger = hclog.New(&hclog.LoggerOptions{Level: hclog.Trace, Output: &log})
	a := openT(t, p)
	var errs []string
	if err := a.Report(t.Context(), working); err != nil {
		errs = append(errs, err.Error())
	}
	if err := a.Release(t.Context()); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) != 1 {
		t.Fatalf("Report and Release errors %q; want one (a release finding no server is done)", errs)
	}
	wantDiags := []adapter.Diagnostic{{Adapter: "tmux", Kind: adapter.KindProtocolRejected, Detail: "report: exit 1: server_not_running"}}
	if diff := cmp.Diff(d.all(), wantDiags); diff != "" {
		t.Errorf("diagnostics (-got +want):\n%s", diff)
	}
	if !strings.Contains(log.String(), "tmux pane options unset") {
		t.Errorf("the log does not come from the adapter:\n%s", log.String())
	}
	for _, text := range append(errs, log.String()) {
		if strings.Contains(text, "secret-socket") {
			t.Errorf("%q repeats tmux's output", text)
		}
	}
}
