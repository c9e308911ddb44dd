//go:build unix

package tmux

import (
	"context"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/testenv"
)

// stopServer stops s (SIGSTOP) and returns the function that lets it run
// again (SIGCONT), which the test's cleanup calls too.
func stopServer(t *testing.T, s *server) (resume func()) {
	t.Helper()
	pid, err := strconv.Atoi(s.pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	resume = func() {
		if stopped {
			stopped = false
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Errorf("SIGCONT tmux: %v", err)
			}
		}
	}
	t.Cleanup(resume)
	return resume
}

// waitClean waits (another process) until s answers again and pane has
// none of its options, and fails with what is left after bound.
func waitClean(t *testing.T, s *server, pane string, bound time.Duration, log func() string) {
	t.Helper()
	var got map[string]string
	deadline := time.Now().Add(bound)
	for {
		if out, err := s.try("display-message", "-p", "ok"); err == nil && strings.TrimSpace(out) == "ok" {
			if got = s.options(t, pane); len(got) == 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v after SIGCONT the pane still has options (-got +want):\n%s\n%s",
				bound, cmp.Diff(got, map[string]string{}), log())
		}
		time.Sleep(20 * time.Millisecond) // another process: nothing to wait on
	}
}

// TestStoppedServerAppliesNoWithdrawnReport is issue 31's attack at the
// adapter: the server is stopped (SIGSTOP) while a report is in flight;
// the report's client is killed at its deadline after it sent its
// commands (the server, once running again, still runs them), and the
// release finds no time left in the host's budget. Once the server runs
// again (SIGCONT), the pane ends with none of the three options: the
// release left its clear to a tmux client that outlives the call.
func TestStoppedServerAppliesNoWithdrawnReport(t *testing.T) {
	s := startServer(t, nil)
	pane := s.panes(t)[0]
	var d diags
	a := openT(t, params(s.paneEnv(pane), `{"timeout":"300ms"}`, &d))
	if err := a.Report(context.Background(), working); err != nil {
		t.Fatal(err)
	}
	if got := s.options(t, pane); !cmp.Equal(got, want("working", "")) {
		t.Fatalf("after the first report: %v", got)
	}
	resume := stopServer(t, s)
	if err := a.Report(context.Background(), blocked); err == nil {
		t.Fatal("a report to a stopped server succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the host's release budget is spent
	if err := a.Release(ctx); err == nil {
		t.Error("a release with no time left says it was delivered")
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	resume()
	waitClean(t, s, pane, 5*time.Second, func() string { return "" })
}

// TestStoppedServerEndsCleanAfterQuit is the same attack on a whole host
// (examples/chat): the server is stopped while the chat has a report in
// flight and quits. The quit is bounded, and once the server runs again
// the pane ends clean.
func TestStoppedServerEndsCleanAfterQuit(t *testing.T) {
	s := startServer(t, nil)
	pane := s.panes(t)[0]
	chat := testenv.Chat(t)
	home := t.TempDir()
	cmd := exec.Command(chat, "--project", home, "--log-level", "debug")
	cmd.Env = s.paneEnv(pane, "HOME="+home)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		<-exited
	})
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"op":"agent_start"}`)
	waitOptions(t, s, pane, "a turn starts", want("working", ""))
	resume := stopServer(t, s)
	send(`{"op":"prompt_start","id":"p1","kind":"approval"}`)
	send(`{"op":"quit"}`)
	start := time.Now()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the chat with a stopped tmux: %v; want exit 0\n%s", err, stderr.String())
		}
		exited <- err // for the cleanup's wait
	case <-time.After(30 * time.Second):
		t.Fatalf("the chat did not quit within 30s with tmux stopped\n%s", stderr.String())
	}
	t.Logf("quit after %v with tmux stopped", time.Since(start).Round(time.Millisecond))
	resume()
	waitClean(t, s, pane, 5*time.Second, func() string { return "chat log:\n" + stderr.String() })
}
