package herdrtest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
)

func TestCallsLog(t *testing.T) {
	r := newRunner(t, Options{})
	r.env = []string{"HERDR_EXTRA=x", "NOT_HERDR=y"}
	r.ok(report(r.h.Pane, src, lbl, "working", "--seq", "1", "--seq", "2")...)
	r.usage("missing required --source", "pane", "release-agent", r.h.Pane)
	r.want(result{Stdout: "herdr 0.8.2\n"}, "--version")
	calls, err := r.h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := map[string]string{"HERDR_EXTRA": "x"}
	for _, kv := range r.h.Env() {
		k, v, _ := cutEq(kv)
		wantEnv[k] = v
	}
	want := []Call{
		{Transport: TransportCLI, Args: report(r.h.Pane, src, lbl, "working", "--seq", "1", "--seq", "2"), Env: wantEnv, Command: "pane report-agent", Pane: "w1:p1",
			Arrival: 2, Method: "pane.report_agent", Params: json.RawMessage(`{"pane_id":"w1:p1","source":"custom:test","agent":"test-agent","state":"working","seq":2}`),
			Applied: true, Status: StatusWorking, Agent: lbl},
		{Transport: TransportCLI, Args: []string{"pane", "release-agent", "w1:p1"}, Env: wantEnv, Exit: 2, Stderr: len("missing required --source\n"), Command: "pane release-agent", Pane: "w1:p1"},
		{Transport: TransportCLI, Args: []string{"--version"}, Env: wantEnv, Stdout: len("herdr 0.8.2\n"), Command: "--version"},
	}
	if diff := cmp.Diff(calls, want, cmpopts.IgnoreFields(Call{}, "Start", "End", "PID", "Handled")); diff != "" {
		t.Errorf("Calls (-got +want):\n%s", diff)
	}
	for i, c := range calls {
		if c.Start.IsZero() || c.End.Before(c.Start) || c.PID == 0 {
			t.Errorf("call %d: start %v end %v pid %d", i, c.Start, c.End, c.PID)
		}
		if (c.Arrival > 0) != !c.Handled.IsZero() || (c.Arrival > 0 && (c.Handled.Before(c.Start) || c.Handled.After(c.End))) {
			t.Errorf("call %d: handled %v, outside its start %v and end %v", i, c.Handled, c.Start, c.End)
		}
		if i > 0 && c.Start.Before(calls[i-1].End) {
			t.Errorf("call %d started before call %d ended", i, i-1)
		}
	}
	if v, ok := calls[0].Flag("seq"); v != "2" || !ok {
		t.Errorf(`Flag("seq") = %q, %v; want "2", true`, v, ok)
	}
	if v, ok := calls[0].Flag("message"); v != "" || ok {
		t.Errorf(`Flag("message") = %q, %v; want "", false`, v, ok)
	}
}

func cutEq(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// TestConcurrentInvocations runs fake binaries at once: the server takes
// their requests one at a time, so the high-water mark ends at the largest
// seq, and the shared log holds each invocation once.
func TestConcurrentInvocations(t *testing.T) {
	r := newRunner(t, Options{})
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), r.h.Bin, report(r.h.Pane, src, lbl, "working", "--seq", strconv.Itoa(i+1))...)
			cmd.Env = append(os.Environ(), r.h.Env()...)
			if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
				t.Errorf("report %d: %v %q", i, err, out)
			}
		})
	}
	wg.Wait()
	r.hwm(r.h.Pane, src, n, true)
	calls, err := r.h.Calls()
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != n {
		t.Errorf("%d calls logged, want %d", len(calls), n)
	}
}

func TestStartOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want error
	}{
		{"duplicate_pane", Options{Panes: []string{"w1:p1", "w1:p1"}}, nil},
		{"empty_pane", Options{Panes: []string{""}}, nil},
		{"in_view_unknown", Options{InView: []string{"w9:p9"}}, ErrPaneNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Dir = t.TempDir()
			h, err := Start(tc.opts)
			if err == nil {
				h.Close()
				t.Fatal("Start succeeded")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Start = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestStartDirAndClose(t *testing.T) {
	dir := t.TempDir()
	h, err := Start(Options{Dir: dir, Panes: []string{"w2:p3", "odd-id"}})
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := []string{
		"HERDR_ENV=1",
		"HERDR_BIN_PATH=" + h.Bin,
		"HERDR_PANE_ID=w2:p3",
		"HERDR_SOCKET_PATH=" + h.Socket,
		"HERDR_WORKSPACE_ID=w2",
		"HERDR_TAB_ID=w2:t1",
	}
	if diff := cmp.Diff(h.Env(), wantEnv); diff != "" {
		t.Errorf("Env (-got +want):\n%s", diff)
	}
	info, err := h.Agent("odd-id")
	if err != nil || info.WorkspaceID != "w1" || info.Found {
		t.Errorf("Agent(odd-id) = %+v, %v", info, err)
	}
	if err := h.Focus("w9:p9"); !errors.Is(err, ErrPaneNotFound) {
		t.Errorf("Focus(unknown) = %v", err)
	}
	if err := h.SetInView("w9:p9", true); !errors.Is(err, ErrPaneNotFound) {
		t.Errorf("SetInView(unknown) = %v", err)
	}
	if err := errors.Join(h.Close(), h.Close()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("Close removed a caller-owned Dir: %v", err)
	}
}

func TestSetenv(t *testing.T) {
	h := StartT(t, Options{})
	h.Setenv(t)
	if got := os.Getenv("HERDR_BIN_PATH"); got != h.Bin {
		t.Errorf("HERDR_BIN_PATH = %q", got)
	}
	// With the environment set, a plain exec reaches the emulated server.
	out, err := exec.CommandContext(t.Context(), h.Bin, "pane", "current").Output()
	if err != nil || len(out) == 0 {
		t.Errorf("pane current: %v %q", err, out)
	}
}

func TestGlobalPreprocessing(t *testing.T) {
	r := newRunner(t, Options{})
	if runtime.GOOS != "windows" {
		r.want(result{Code: 2, Stderr: "error: argument 5 is not valid UTF-8\nrun 'herdr --help' for usage\n"},
			"pane", "report-agent", "w1:p1", "--message", "\xff")
	}
	if got := r.run("--help"); got.Code != 0 || got.Stdout == "" {
		t.Errorf("--help = %+v", got)
	}
	if got := r.run("pane", "--help"); got.Code != 0 || got.Stdout == "" {
		t.Errorf("pane --help = %+v", got)
	}
	// --help after a literal -- is not intercepted.
	r.usage("unknown option: --", "pane", "report-agent", "w1:p1", "--", "--help")
	r.want(result{Code: 2, Stderr: "error: missing value for --remote\nrun 'herdr --help' for usage\n"}, "--remote")
	r.want(result{Code: 2, Stderr: "error: unrecognized command 'frobnicate'\nrun 'herdr --help' for usage\n"}, "frobnicate")
	r.want(result{Stdout: "herdr 0.8.2\n"}, "--session", "work", "--version")
	r.want(result{Code: 2, Stderr: "error: remote attach is not emulated by herdrtest\nrun 'herdr --help' for usage\n"}, "--remote", "host", "--handoff")
}

func TestListAndCurrent(t *testing.T) {
	r := newRunner(t, Options{Panes: []string{"w1:p1", "w2:p1"}, InView: []string{"w2:p1"}})
	r.want(result{Stdout: `{"id":"cli:agent:list","result":{"type":"agent_list","agents":[]}}` + "\n"}, "agent", "list")
	r.ok(report("w2:p1", src, lbl, "working")...)
	r.want(result{Stdout: `{"id":"cli:agent:list","result":{"type":"agent_list","agents":[{"terminal_id":"term_6400000000002","agent":"test-agent","agent_status":"working","workspace_id":"w2","tab_id":"w2:t1","pane_id":"w2:p1","focused":true,"state_change_seq":1,"revision":0}]}}` + "\n"},
		"agent", "list")
	r.want(result{Stdout: `{"id":"cli:pane:list","result":{"type":"pane_list","panes":[` +
		`{"pane_id":"w1:p1","terminal_id":"term_6400000000001","workspace_id":"w1","tab_id":"w1:t1","focused":false,"agent_status":"unknown","revision":0},` +
		`{"pane_id":"w2:p1","terminal_id":"term_6400000000002","workspace_id":"w2","tab_id":"w2:t1","focused":true,"agent":"test-agent","agent_status":"working","revision":0}]}}` + "\n"},
		"pane", "list")
	// --workspace narrows the list; an unknown workspace is an error
	// (src/cli/pane.rs:54-78, src/app/creation.rs:277-293).
	r.want(result{Stdout: `{"id":"cli:pane:list","result":{"type":"pane_list","panes":[` +
		`{"pane_id":"w2:p1","terminal_id":"term_6400000000002","workspace_id":"w2","tab_id":"w2:t1","focused":true,"agent":"test-agent","agent_status":"working","revision":0}]}}` + "\n"},
		"pane", "list", "--workspace", "w2")
	r.want(serverErr("cli:pane:list", "workspace_not_found", "workspace w9 not found"), "pane", "list", "--workspace", "w9")
	r.usage("missing value for --workspace", "pane", "list", "--workspace")
	r.usage("unknown option: w1", "pane", "list", "w1")
	r.usage("usage: herdr agent list", "agent", "list", "w1")
	// pane current (src/cli/pane.rs:100-141, src/app/api/panes.rs:142-155,
	// read from Herdr's source): HERDR_PANE_ID or --pane names the caller,
	// the answer is a pane_current result, an unknown pane is "pane not
	// found".
	p1 := `{"pane_id":"w1:p1","terminal_id":"term_6400000000001","workspace_id":"w1","tab_id":"w1:t1","focused":false,"agent_status":"unknown","revision":0}`
	p2 := `{"pane_id":"w2:p1","terminal_id":"term_6400000000002","workspace_id":"w2","tab_id":"w2:t1","focused":true,"agent":"test-agent","agent_status":"working","revision":0}`
	current := func(pane string) result {
		return result{Stdout: `{"id":"cli:pane:current","result":{"type":"pane_current","pane":` + pane + `}}` + "\n"}
	}
	r.want(current(p1), "pane", "current")
	r.want(current(p2), "pane", "current", "--pane", "w2:p1")
	r.want(current(p1), "pane", "current", "--pane", "w2:p1", "--current")
	r.want(serverErr("cli:pane:current", "pane_not_found", "pane not found"), "pane", "current", "--pane", "w9:p9")
	r.usage("unknown option: extra", "pane", "current", "extra")
	r.usage("missing value for --pane", "pane", "current", "--pane")
	// Without a caller Herdr answers with the focused pane (inferred: the
	// first pane in view).
	r.env = []string{"HERDR_PANE_ID= "}
	r.want(current(p2), "pane", "current")
	r.env = nil
	info, err := r.h.Agent("w2:p1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(info, AgentInfo{TerminalID: "term_6400000000002", Agent: lbl, AgentStatus: "working", WorkspaceID: "w2",
		TabID: "w2:t1", PaneID: "w2:p1", Focused: true, StateChangeSeq: 1, Found: true}); diff != "" {
		t.Errorf("Agent (-got +want):\n%s", diff)
	}
}

// BenchmarkInvoke measures one report to the emulated server: through the
// fake binary (process start, log records, a ping and the request on two
// connections), as a bare `--version` (process start and log records
// only), and on the socket from this process (one connection, the server's
// whole path: the floor a socket transport can reach).
func BenchmarkInvoke(b *testing.B) {
	h, err := Start(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	env := append(os.Environ(), h.Env()...)
	b.Run("report-agent", func(b *testing.B) {
		b.ReportAllocs()
		seq := 0
		for b.Loop() {
			seq++
			cmd := exec.Command(h.Bin, "pane", "report-agent", h.Pane, "--source", src, "--agent", lbl,
				"--state", "working", "--seq", strconv.Itoa(seq))
			cmd.Env = env
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("socket", func(b *testing.B) {
		b.ReportAllocs()
		seq := uint64(1 << 40)
		for b.Loop() {
			seq++
			req, err := wire.NewRequest(wire.IDCLIRequest, wire.MethodReportAgent, wire.ReportAgentParams{
				PaneID: h.Pane, Source: src, Agent: lbl, State: wire.StateWorking, Seq: &seq})
			if err != nil {
				b.Fatal(err)
			}
			if resp, err := wire.Do(b.Context(), h.Socket, req); err != nil || resp.Err() != nil {
				b.Fatal(err, resp.Err())
			}
		}
	})
	b.Run("version", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cmd := exec.Command(h.Bin, "--version")
			cmd.Env = env
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestWait checks Herdr.Wait: it returns at the change a subprocess makes,
// gives up with ctx, and refuses an unknown pane.
func TestWait(t *testing.T) {
	r := newRunner(t, Options{})
	cmd := exec.CommandContext(t.Context(), r.h.Bin, report(r.h.Pane, src, lbl, "blocked", "--seq", "1")...)
	cmd.Env = append(os.Environ(), r.h.Env()...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	info, err := r.h.Wait(t.Context(), r.h.Pane, func(a AgentInfo) bool { return a.AgentStatus == StatusBlocked })
	if err != nil || info.Agent != lbl {
		t.Errorf("Wait = %+v, %v", info, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	last, err := r.h.Wait(ctx, r.h.Pane, func(a AgentInfo) bool { return a.AgentStatus == StatusIdle })
	if !errors.Is(err, context.Canceled) || last.AgentStatus != StatusBlocked {
		t.Errorf("Wait with a cancelled ctx = %+v, %v; want the last view and context.Canceled", last, err)
	}
	if _, err := r.h.Wait(t.Context(), "w9:p9", func(AgentInfo) bool { return true }); !errors.Is(err, ErrPaneNotFound) {
		t.Errorf("Wait for an unknown pane = %v", err)
	}

	// A restart is a change: the pane shows no agent again.
	done := make(chan error, 1)
	go func() {
		_, err := r.h.Wait(t.Context(), r.h.Pane, func(a AgentInfo) bool { return !a.Found })
		done <- err
	}()
	if err := errors.Join(r.h.StopServer(), r.h.StartServer()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("Wait across a restart: %v", err)
	}

	// Close ends a Wait: the server is gone for good.
	go func() {
		_, err := r.h.Wait(t.Context(), r.h.Pane, func(AgentInfo) bool { return false })
		done <- err
	}()
	if err := r.h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrServerNotRunning) {
		t.Errorf("Wait across Close = %v, want ErrServerNotRunning", err)
	}
	if _, err := r.h.Wait(t.Context(), r.h.Pane, func(AgentInfo) bool { return true }); !errors.Is(err, ErrServerNotRunning) {
		t.Errorf("Wait after Close = %v, want ErrServerNotRunning", err)
	}
}

func TestPaneEnv(t *testing.T) {
	h := StartT(t, Options{})
	t.Setenv("TMUX", "/tmp/tmux-1/default,1,0")
	t.Setenv("HERDR_STRAY", "x")
	home := t.TempDir()
	env := h.PaneEnv(home)
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Errorf("%s set twice", k)
		}
		got[k] = v
	}
	for k, want := range map[string]string{
		"HOME":              home,
		"XDG_CONFIG_HOME":   filepath.Join(home, ".config"),
		"XDG_STATE_HOME":    filepath.Join(home, ".local", "state"),
		"HERDR_SOCKET_PATH": h.Socket,
		"HERDR_PANE_ID":     h.Pane,
		"HERDR_ENV":         "1",
	} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	for _, k := range []string{"TMUX", "HERDR_STRAY"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s leaked into the pane environment", k)
		}
	}
	if got["PATH"] != os.Getenv("PATH") {
		t.Error("PATH not passed through")
	}
}

func TestSocketMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a named pipe on Windows")
	}
	h := StartT(t, Options{Dir: filepath.Join(t.TempDir(), strings.Repeat("long-directory-name-", 5))})
	fi, err := os.Stat(h.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with 0600 (CONTRACT §1.6)", fi.Mode())
	}
	if len(h.Socket) > maxSocketPath || strings.HasPrefix(h.Socket, h.Dir) {
		t.Errorf("socket %s (%d bytes) for a directory too long for one", h.Socket, len(h.Socket))
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(h.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after Close: %v", err)
	}
}

// TestWaitCallsEndsAtClose: a WaitCalls whose condition never holds returns
// when h closes, also with a caller-owned Dir (whose log stays readable).
func TestWaitCallsEndsAtClose(t *testing.T) {
	h, err := Start(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.WaitCalls(t.Context(), func([]Call) bool { return false })
		done <- err
	}()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrServerNotRunning) {
		t.Errorf("WaitCalls across Close = %v, want ErrServerNotRunning", err)
	}
}
