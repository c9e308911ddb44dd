package tmux

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/optional"
)

// childEnvFlag makes the test binary another host process in a pane: it
// opens the adapter from its own environment and runs the commands it
// reads, one per line ("report <state>", "release"), answering each with
// "ok" or "err <error>", and "stale" for each stale_owner diagnostic.
const childEnvFlag = "PANESTATE_TMUX_TEST_CHILD"

func childMain() int {
	ctx := context.Background()
	out := bufio.NewWriter(os.Stdout)
	say := func(s string) { out.WriteString(s + "\n"); out.Flush() }
	p := params(adapter.Env(os.Environ()), "", nil)
	p.Diagnose = func(d adapter.Diagnostic) {
		if d.Kind == adapter.KindStaleOwner {
			say("stale")
		}
	}
	a, err := Driver{}.Open(ctx, p)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	defer optional.Close(ctx, a)
	states := map[string]adapter.Report{"working": working, "blocked": blocked, "idle": idle}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		verb, arg, _ := strings.Cut(in.Text(), " ")
		var err error
		switch verb {
		case "report":
			err = a.Report(ctx, states[arg])
		case "release":
			err = optional.Release(ctx, a)
		}
		if err != nil {
			say("err " + err.Error())
			continue
		}
		say("ok")
	}
	return 0
}

// host is another host process in a pane of s.
type host struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	stale int
}

func startHost(t *testing.T, s *server, pane string) *host {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append([]string{childEnvFlag + "=1"}, s.paneEnv(pane)...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &host{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(func() {
		h.in.Close()
		h.cmd.Wait()
	})
	return h
}

func (h *host) do(t *testing.T, command string) string {
	t.Helper()
	if _, err := io.WriteString(h.in, command+"\n"); err != nil {
		t.Fatal(err)
	}
	for h.out.Scan() {
		if line := h.out.Text(); line != "stale" {
			return line
		}
		h.stale++
	}
	t.Fatalf("host %q: no answer", command)
	return ""
}

// secondHostQuits are the ways a second host in the pane quits: by its
// release, or by dying.
var secondHostQuits = []struct {
	name string
	quit func(t *testing.T, h *host)
}{
	{name: "second host releases", quit: func(t *testing.T, h *host) {
		if got := h.do(t, "release"); got != "ok" {
			t.Fatalf("second host release: %s", got)
		}
	}},
	{name: "second host is killed", quit: func(t *testing.T, h *host) {
		if err := h.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		h.cmd.Wait()
	}},
}

// TestTwoHostsInOnePane: a second host process in the pane (Ctrl-Z and a
// new one, a nested agent that was not scrubbed) takes the pane, and the
// first one, refused, sends nothing and says so once. When the second one
// quits, by a release or by dying, its quit does not leave the pane blank:
// the first one shows its last state again by itself, without waiting for
// its next change.
func TestTwoHostsInOnePane(t *testing.T) {
	for _, tt := range secondHostQuits {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, nil)
			pane := s.panes(t)[0]
			d := &diags{}
			first := openT(t, params(s.paneEnv(pane), "", d))
			back := make(chan struct{}, 1)
			onTakeBack(t, first, func() { back <- struct{}{} })
			if err := first.Report(t.Context(), working); err != nil {
				t.Fatal(err)
			}
			second := startHost(t, s, pane)
			if got := second.do(t, "report blocked"); got != "ok" {
				t.Fatalf("second host: %s", got)
			}
			if err := first.Report(t.Context(), idle); err != nil {
				t.Fatalf("refused Report = %v, want nil", err)
			}
			if diff := cmp.Diff(s.options(t, pane), want("blocked", "Waiting for approval")); diff != "" {
				t.Errorf("the refused host changed the pane (-got +want):\n%s", diff)
			}
			if first.OwnsPane() || first.Details()["owner"] != "stale" {
				t.Errorf("first host: OwnsPane %v, owner %q; want stale", first.OwnsPane(), first.Details()["owner"])
			}
			tt.quit(t, second)
			<-back
			if diff := cmp.Diff(s.options(t, pane), want("idle", "")); diff != "" {
				t.Errorf("after the second host quit (-got +want):\n%s", diff)
			}
			if !first.OwnsPane() {
				t.Error("the first host does not own the pane again")
			}
			var stale int
			for _, x := range d.all() {
				if x.Kind == adapter.KindStaleOwner {
					stale++
				}
			}
			if stale != 1 {
				t.Errorf("diagnostics %v, want one stale_owner", d.all())
			}
		})
	}
}

// TestFirstHostComesBackWithoutReporting: the first host's state does not
// change while a second host process holds the pane, so it makes no call;
// when the second one quits, by a release or by dying, the first one still
// learns it (from the pane file) and shows its state again by itself.
func TestFirstHostComesBackWithoutReporting(t *testing.T) {
	for _, tt := range secondHostQuits {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, nil)
			pane := s.panes(t)[0]
			first := openT(t, params(s.paneEnv(pane), "", nil))
			back := make(chan struct{}, 1)
			onTakeBack(t, first, func() { back <- struct{}{} })
			if err := first.Report(t.Context(), working); err != nil {
				t.Fatal(err)
			}
			second := startHost(t, s, pane)
			if got := second.do(t, "report blocked"); got != "ok" || second.stale != 0 {
				t.Fatalf("second host: %s, %d stale_owner", got, second.stale)
			}
			if diff := cmp.Diff(s.options(t, pane), want("blocked", "Waiting for approval")); diff != "" {
				t.Fatalf("the second host's report (-got +want):\n%s", diff)
			}
			tt.quit(t, second)
			wait, cancel := context.WithTimeout(t.Context(), 20*time.Second) // a bound, not a synchronisation
			defer cancel()
			select {
			case <-back:
			case <-wait.Done():
				t.Fatal("the first host did not take the pane back within 20 s")
			}
			if diff := cmp.Diff(s.options(t, pane), want("working", "")); diff != "" {
				t.Errorf("after the second host quit (-got +want):\n%s", diff)
			}
			if !first.OwnsPane() || first.Details()["owner"] != "owner" {
				t.Errorf("first host: OwnsPane %v, owner %q; want owner", first.OwnsPane(), first.Details()["owner"])
			}
		})
	}
}

// TestOlderHostQuitKeepsNewerState: the first host quits while the second
// one holds the pane: its release is not sent, and the second one's state
// stays.
func TestOlderHostQuitKeepsNewerState(t *testing.T) {
	s := startServer(t, nil)
	pane := s.panes(t)[0]
	first := openT(t, params(s.paneEnv(pane), "", nil))
	if err := first.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	second := startHost(t, s, pane)
	if got := second.do(t, "report blocked"); got != "ok" {
		t.Fatalf("second host: %s", got)
	}
	if err := first.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.options(t, pane), want("blocked", "Waiting for approval")); diff != "" {
		t.Errorf("the first host's quit changed the pane (-got +want):\n%s", diff)
	}
	if got := second.do(t, "report working"); got != "ok" || second.stale != 0 {
		t.Errorf("second host: %s, %d stale_owner", got, second.stale)
	}
}

// TestTwoAdaptersOneProcess: within one process the newer adapter owns the
// pane; the older one takes it back once the newer one is closed.
func TestTwoAdaptersOneProcess(t *testing.T) {
	s := startServer(t, nil)
	pane := s.panes(t)[0]
	older := openT(t, params(s.paneEnv(pane), "", nil))
	back := make(chan struct{}, 1)
	onTakeBack(t, older, func() { back <- struct{}{} })
	newer := openT(t, params(s.paneEnv(pane), "", nil))
	if err := older.Report(t.Context(), working); err != nil {
		t.Fatal(err)
	}
	if err := newer.Report(t.Context(), blocked); err != nil {
		t.Fatal(err)
	}
	if err := older.Report(t.Context(), idle); err != nil {
		t.Fatal(err)
	}
	if got := older.Details()["owner"]; got != "stale" {
		t.Errorf("older owner %q, want stale", got)
	}
	if diff := cmp.Diff(s.options(t, pane), want("blocked", "Waiting for approval")); diff != "" {
		t.Errorf("(-got +want):\n%s", diff)
	}
	if err := newer.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := newer.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	<-back
	if diff := cmp.Diff(s.options(t, pane), want("idle", "")); diff != "" {
		t.Errorf("after the newer adapter let go (-got +want):\n%s", diff)
	}
}
