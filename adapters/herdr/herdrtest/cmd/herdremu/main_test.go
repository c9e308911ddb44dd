package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/adapters/herdr/internal/wire"
	"github.com/panestate/panestate/internal/testenv"
)

// childVar makes the re-executed test binary the program herdremu runs.
const childVar = "HERDREMU_TEST_CHILD"

func TestMain(m *testing.M) {
	herdrtest.Main() // the test binary is also the emulator's fake herdr
	if os.Getenv(childVar) != "" {
		os.Exit(child(os.Getenv(childVar)))
	}
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}

// child is a host in the pane: it echoes a line of stdin, reports through
// the CLI twice and once on the socket, then by mode releases ("release"),
// stays ("stay"), gives a resume command ("resume") or reports the state
// unknown ("unknown"), and exits 3. In mode
// "quiet" it reports nothing; in mode "env" it prints the variables of
// envShown instead.
func child(mode string) int {
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	fmt.Printf("child got: %s", line)
	switch mode {
	case "quiet":
		return 3
	case "env":
		for _, k := range envShown {
			fmt.Printf("%s=%s\n", k, os.Getenv(k))
		}
		return 3
	case "hang":
		return hangingHost()
	case "hang_socket":
		return hangingSocketHost()
	}
	pane, bin := os.Getenv("HERDR_PANE_ID"), os.Getenv("HERDR_BIN_PATH")
	cli := func(args ...string) {
		cmd := exec.Command(bin, append([]string{"pane", args[0], pane, "--source", "custom:child", "--agent", "child"}, args[1:]...)...)
		cmd.Stderr = os.Stderr
		_ = cmd.Run() // a failure is herdremu's to show
	}
	if mode == "late_release_child" {
		cli("release-agent", "--seq", "4")
		return 0
	}
	cli("report-agent", "--state", "working", "--seq", "1")
	cli("report-agent", "--state", "blocked", "--message", "Waiting for approval", "--seq", "2")
	seq := uint64(3)
	req, _ := wire.NewRequest("child", wire.MethodReportAgent, wire.ReportAgentParams{
		PaneID: pane, Source: "custom:child", Agent: "child", State: wire.StateIdle, Seq: &seq})
	if _, err := wire.Do(context.Background(), os.Getenv("HERDR_SOCKET_PATH"), req); err != nil {
		fmt.Fprintln(os.Stderr, "child: socket:", err)
	}
	switch mode {
	case "late_release":
		// A detached process (a hook agent's bridge) releases the pane once
		// the command is gone: its stdin, this process's pipe, ends when
		// this process exits.
		late := exec.Command(os.Args[0])
		late.Env = append(os.Environ(), childVar+"=late_release_child")
		if _, err := late.StdinPipe(); err != nil || late.Start() != nil {
			fmt.Fprintln(os.Stderr, "child: cannot start the late releaser")
		}
	case "release":
		cli("release-agent", "--seq", "4")
	case "resume":
		cli("report-agent", "--state", "idle", "--seq", "4", "--", "child", "--resume", "abc")
	case "unknown":
		cli("report-agent", "--state", "unknown", "--seq", "4")
	}
	return 3
}

// hangingHost is a host under -fault hang: it pings the socket, as a
// reporter does before its first report, and gives up at its deadline
// without reporting; then it reports through the CLI, which it kills at
// its deadline. It exits 3.
func hangingHost() int {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := wire.Ping(ctx, os.Getenv("HERDR_SOCKET_PATH")); err == nil {
		fmt.Fprintln(os.Stderr, "child: the ping was answered under -fault hang")
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer ccancel()
	cmd := exec.CommandContext(cctx, os.Getenv("HERDR_BIN_PATH"), "pane", "report-agent", os.Getenv("HERDR_PANE_ID"),
		"--source", "custom:child", "--agent", "child", "--state", "working", "--seq", "1")
	_ = cmd.Run() // killed at the deadline
	return 3
}

// hangingSocketHost is a socket reporter under -fault hang, as panestate's
// is: its ping hangs until its deadline, so its reports are never sent, and
// at its quit its release (sent without a ping) hangs too. It exits 3.
func hangingSocketHost() int {
	socket := os.Getenv("HERDR_SOCKET_PATH")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := wire.Ping(ctx, socket); err == nil {
		fmt.Fprintln(os.Stderr, "child: the ping was answered under -fault hang")
	}
	seq := uint64(1)
	req, _ := wire.NewRequest("child", wire.MethodReleaseAgent, wire.ReleaseAgentParams{
		PaneID: os.Getenv("HERDR_PANE_ID"), Source: "custom:child", Agent: "child", Seq: &seq})
	rctx, rcancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer rcancel()
	if _, err := wire.Do(rctx, socket, req); err == nil {
		fmt.Fprintln(os.Stderr, "child: the release was answered under -fault hang")
	}
	return 3
}

// envShown are the variables the child prints in mode "env".
var envShown = []string{"HOME", "XDG_CONFIG_HOME", "GOMODCACHE", "GOCACHE", "GOPATH"}

// runEmu runs herdremu with flags around the child and returns its exit
// status, stdout and stderr.
func runEmu(t *testing.T, mode string, flags ...string) (int, string, string) {
	t.Helper()
	t.Setenv(childVar, mode)
	var stdout, stderr bytes.Buffer
	args := append(flags, "--", os.Args[0])
	code := run(args, strings.NewReader("hello\n"), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// row matches one timeline row: elapsed, transport, request, state, shows,
// seq, message, answer.
var row = regexp.MustCompile(`(?m)^\d+\.\d{3}s +(\S+) +(\S+) +(\S+) +(no agent|\S+) +(\S+) +("[^"]*"|-) +(\S+)$`)

func rows(stderr string) []string {
	var out []string
	for _, m := range row.FindAllStringSubmatch(stderr, -1) {
		out = append(out, strings.Join(m[1:], " "))
	}
	return out
}

// checkReleasedRows fails unless the timeline in stderr has the rows of
// mode release: two CLI reports, one on the socket, the CLI's release.
func checkReleasedRows(t *testing.T, stderr string) {
	t.Helper()
	want := []string{
		"cli report-agent working working 1 - applied",
		`cli report-agent blocked blocked 2 "Waiting for approval" applied`,
		"socket report-agent idle done 3 - applied",
		"cli release-agent - no agent 4 - applied",
	}
	if got := rows(stderr); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline rows:\n%s\nwant:\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), stderr)
	}
}

func TestTimeline(t *testing.T) {
	code, stdout, stderr := runEmu(t, "release")
	if code != 3 {
		t.Errorf("exit status %d, want the command's 3\n%s", code, stderr)
	}
	if stdout != "child got: hello\n" {
		t.Errorf("stdout %q: stdin or stdout not passed through", stdout)
	}
	checkReleasedRows(t, stderr)
	if !strings.Contains(stderr, "ELAPSED  TRANSPORT  REQUEST") ||
		!strings.Contains(stderr, "herdremu: Herdr 0.8.2, pane w1:p1: 4 requests (3 cli, 1 socket), 4 applied, 0 ignored, 0 failed; the pane shows no agent; ") ||
		!strings.HasSuffix(stderr, " exited 3\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestTimelineWaitsForALateRelease: the host's release comes from a
// detached process after the command exited (a hook agent's bridge after
// the agent crashed): herdremu waits for it, and the timeline ends with it
// and the pane released. A pane left claimed is waited for at most
// -release-wait, and the timeline says no release came.
func TestTimelineWaitsForALateRelease(t *testing.T) {
	code, _, stderr := runEmu(t, "late_release")
	if code != 3 {
		t.Errorf("exit status %d, want the command's 3\n%s", code, stderr)
	}
	checkReleasedRows(t, stderr)
	if !strings.Contains(stderr, "herdremu: the pane was released ") || !strings.Contains(stderr, "the pane shows no agent;") {
		t.Errorf("stderr does not say the pane was released after the command:\n%s", stderr)
	}
	_, _, stderr = runEmu(t, "stay", "-release-wait", "100ms")
	if !strings.Contains(stderr, "no release came in the 100ms after (-release-wait)") {
		t.Errorf("a pane left claimed: stderr does not say no release came:\n%s", stderr)
	}
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    string
		flags   []string
		rows    []string
		summary string
	}{
		{"in_view_093", "stay", []string{"-version", "0.9.3", "-in-view", "-release-wait", "200ms"}, []string{
			"cli report-agent working working 1 - applied",
			`cli report-agent blocked blocked 2 "Waiting for approval" applied`,
			"socket report-agent idle idle 3 - applied",
		}, "herdremu: Herdr 0.9.3, pane w1:p1: 3 requests (2 cli, 1 socket), 3 applied, 0 ignored, 0 failed; the pane shows idle (child)"},
		{"fail", "stay", []string{"-fault", "fail", "-private-home"}, []string{
			// The CLI's own ping fails first: no request follows it.
			"cli report-agent working - 1 - server_unavailable",
			`cli report-agent blocked - 2 "Waiting for approval" server_unavailable`,
			"socket report-agent idle no agent 3 - server_unavailable",
		}, "3 requests (2 cli, 1 socket), 0 applied, 0 ignored, 3 failed; the pane shows no agent"},
		{"hang", "hang", []string{"-fault", "hang"}, []string{
			// The ping that hung is where the reports went: none followed.
			"socket ping - - - - hung",
			"cli report-agent working - 1 - hung",
		}, "1 requests (1 cli, 0 socket), 0 applied, 0 ignored, 1 failed; the pane shows no agent"},
		{"hang_socket", "hang_socket", []string{"-fault", "hang"}, []string{
			"socket ping - - - - hung",
			"socket release-agent - - 1 - hung",
		}, "herdremu: no report was sent: a reporter sends none until its ping is answered, and the ping at "},
		{"resume_093", "resume", []string{"-version", "0.9.3", "-release-wait", "200ms"}, []string{
			"cli report-agent working working 1 - applied",
			`cli report-agent blocked blocked 2 "Waiting for approval" applied`,
			"socket report-agent idle done 3 - applied",
			"cli report-agent+resume idle done 4 - applied",
		}, `the pane shows done (child); the server keeps the resume command ["child" "--resume" "abc"]; `},
		{"agent_in_state_unknown", "unknown", []string{"-release-wait", "200ms"}, []string{
			"cli report-agent working working 1 - applied",
			`cli report-agent blocked blocked 2 "Waiting for approval" applied`,
			"socket report-agent idle done 3 - applied",
			"cli report-agent unknown unknown 4 - applied",
		}, "the pane shows unknown (child); "},
		{"slow", "stay", []string{"-fault", "slow", "-slow", "20ms", "-release-wait", "200ms"}, []string{
			"cli report-agent working working 1 - applied",
			`cli report-agent blocked blocked 2 "Waiting for approval" applied`,
			"socket report-agent idle done 3 - applied",
		}, "3 applied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runEmu(t, tc.mode, tc.flags...)
			if code != 3 {
				t.Errorf("exit status %d\n%s", code, stderr)
			}
			if got := rows(stderr); strings.Join(got, "\n") != strings.Join(tc.rows, "\n") {
				t.Errorf("timeline rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.rows, "\n"))
			}
			if !strings.Contains(stderr, tc.summary) {
				t.Errorf("summary missing %q:\n%s", tc.summary, stderr)
			}
		})
	}
}

func TestNoReport(t *testing.T) {
	code, stdout, stderr := runEmu(t, "quiet")
	if code != 3 || stdout != "child got: hello\n" {
		t.Errorf("exit status %d, stdout %q", code, stdout)
	}
	if !strings.HasPrefix(stderr, "herdremu: no report reached the pane\n") || strings.Contains(stderr, "ELAPSED") ||
		!strings.Contains(stderr, ": 0 requests (0 cli, 0 socket), 0 applied, 0 ignored, 0 failed; the pane shows no agent; ") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no_command", nil, 2, "no command to run"},
		{"bad_fault", []string{"-fault", "explode", "--", "true"}, 2, `-fault "explode"`},
		{"bad_version", []string{"-version", "1.0", "--", "true"}, 2, `unknown Herdr version "1.0"`},
		{"no_such_command", []string{"--", "/nonexistent/mychat"}, 127, "herdremu: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run(tc.args, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}

// TestPrivateHomeKeepsGoCaches proves that -private-home hands the command
// the caller's Go caches, however the caller's go resolves them, and
// nothing else of the caller's home.
func TestPrivateHomeKeepsGoCaches(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup prepares the caller's environment in dir and returns the
		// GOMODCACHE, GOCACHE and GOPATH the command must see.
		setup func(t *testing.T, dir string) (mod, cache, gopath string)
	}{
		{"from_environment", func(t *testing.T, dir string) (string, string, string) {
			mod, cache, gopath := filepath.Join(dir, "mod"), filepath.Join(dir, "cache"), filepath.Join(dir, "gopath")
			t.Setenv("GOMODCACHE", mod)
			t.Setenv("GOCACHE", cache)
			t.Setenv("GOPATH", gopath)
			return mod, cache, gopath
		}},
		{"from_go_env_file", func(t *testing.T, dir string) (string, string, string) {
			if _, err := exec.LookPath("go"); err != nil {
				t.Skip("no go command on PATH:", err)
			}
			unsetGo(t)
			mod, cache, gopath := filepath.Join(dir, "m"), filepath.Join(dir, "c"), filepath.Join(dir, "p")
			file := filepath.Join(dir, "goenv")
			if err := os.WriteFile(file, []byte("GOMODCACHE="+mod+"\nGOCACHE="+cache+"\nGOPATH="+gopath+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("GOENV", file)
			return mod, cache, gopath
		}},
		{"defaults_without_go_on_path", func(t *testing.T, dir string) (string, string, string) {
			unsetGo(t)
			t.Setenv("PATH", filepath.Join(dir, "empty"))
			home := filepath.Join(dir, "realhome")
			t.Setenv("HOME", home)
			t.Setenv("USERPROFILE", home)
			t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "xdgcache"))
			t.Setenv("LocalAppData", filepath.Join(dir, "localappdata"))
			userCache, err := os.UserCacheDir()
			if err != nil {
				t.Fatal(err)
			}
			return filepath.Join(home, "go", "pkg", "mod"), filepath.Join(userCache, "go-build"), filepath.Join(home, "go")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mod, cache, gopath := tc.setup(t, dir)
			callerHome, _ := os.UserHomeDir()
			code, stdout, stderr := runEmu(t, "env", "-private-home")
			if code != 3 {
				t.Fatalf("exit status %d\n%s", code, stderr)
			}
			got := map[string]string{}
			for line := range strings.Lines(strings.TrimPrefix(stdout, "child got: hello\n")) {
				k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
				got[k] = v
			}
			home := got["HOME"]
			if home == "" || home == callerHome || got["XDG_CONFIG_HOME"] != filepath.Join(home, ".config") {
				t.Errorf("HOME %q, XDG_CONFIG_HOME %q: want a private home, not %q", home, got["XDG_CONFIG_HOME"], callerHome)
			}
			want := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "GOMODCACHE": mod, "GOCACHE": cache, "GOPATH": gopath}
			if diff := cmp.Diff(got, want); diff != "" {
				t.Errorf("child environment (-got +want):\n%s", diff)
			}
		})
	}
}

// unsetGo removes the Go variables herdremu passes on, and GOENV, from the
// environment for the rest of the test.
func unsetGo(t *testing.T) {
	t.Helper()
	for _, k := range []string{"GOMODCACHE", "GOCACHE", "GOPATH", "GOENV"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}
