//go:build linux || darwin

package terminal_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/testenv"
)

// e2eTimeout bounds each wait in the end-to-end tests. It is far above what
// the runs need, so that only a hang fails them.
const e2eTimeout = 60 * time.Second

// screen is the terminal the chat writes to.
type screen struct{ *testenv.Screen }

func newScreen() *screen { return &screen{testenv.NewScreen()} }

func (s *screen) copyFrom(r io.Reader) { s.CopyFrom(r) }

func (s *screen) bytes() []byte { return s.Bytes() }

// waitFor blocks until the output holds want, or fails the test.
func (s *screen) waitFor(t *testing.T, want []byte) {
	t.Helper()
	s.Wait(t, e2eTimeout, fmt.Sprintf("%q", want), func(b []byte) bool { return bytes.Contains(b, want) })
}

// waitForSequences blocks until the output holds at least n of the
// sequences oscs finds, or fails the test.
func (s *screen) waitForSequences(t *testing.T, n int) {
	t.Helper()
	s.Wait(t, e2eTimeout, fmt.Sprintf("%d sequences", n), func(b []byte) bool { return len(oscs(b)) >= n })
}

// oscs returns the progress and notification sequences in out, in order.
var oscPattern = regexp.MustCompile(`\x1b\]((?:9|99|777);[^\x07\x1b]*)(?:\x1b\\|\x07)`)

func oscs(out []byte) []string {
	var seqs []string
	for _, m := range oscPattern.FindAllSubmatch(out, -1) {
		seqs = append(seqs, string(m[1]))
	}
	return seqs
}

// startChat runs examples/chat with args under a new pseudo-terminal, in
// Ghostty's environment, with HOME holding settings. It returns the
// command, the screen its output goes to, and a wait function that returns
// once the program has exited and its output has been read to the end.
func startChat(t *testing.T, settings string, args ...string) (*exec.Cmd, *screen, *os.File, func() error) {
	t.Helper()
	bin := testenv.Chat(t)
	home := t.TempDir()
	if settings != "" {
		dir := filepath.Join(home, ".chat", "agent")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, append([]string{"--project", home}, args...)...)
	// A clean environment: no TMUX, no HERDR_*, nothing of the
	// developer's own terminal besides what the test names.
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color",
		"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0"}
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 120})
	if err != nil {
		t.Fatalf("starting examples/chat under a pty: %v", err)
	}
	scr := newScreen()
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		scr.copyFrom(ptmx)
	}()
	var once sync.Once
	var waitErr error
	wait := func() error {
		once.Do(func() {
			waitErr = cmd.Wait()
			<-copied
			ptmx.Close()
		})
		return waitErr
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
		_ = wait()
	})
	return cmd, scr, ptmx, wait
}

// TestChatUnderPTY runs the chat example on a real pseudo-terminal, as
// Ghostty would, through a whole turn with an approval prompt: the tab
// shows indeterminate progress, then the paused state with one
// notification, then progress again, and is cleared when the turn ends and
// again when the host detaches. Each op is typed only once the previous
// one's sequences are on the terminal, because the registry keeps only the
// newest pending report: no sleep decides the order.
func TestChatUnderPTY(t *testing.T) {
	_, scr, ptmx, wait := startChat(t, `{"terminal": {"notify": true}}`)
	steps := []struct {
		op   string   // typed on the terminal; "" for the attach
		want []string // the sequences it adds
	}{
		{"", []string{"9;4;0"}}, // attached while idle
		{`{"op":"agent_start"}`, []string{"9;4;3"}},
		{`{"op":"prompt_start","id":"p1","kind":"approval"}`, []string{
			"9;4;4;100",                            // blocked
			"777;notify;chat;Waiting for approval", // entering blocked, notify is on
		}},
		{`{"op":"prompt_end","id":"p1"}`, []string{"9;4;3"}}, // answered: working
		{`{"op":"agent_settled"}`, []string{"9;4;0"}},        // idle
	}
	var want []string
	for _, st := range steps {
		if st.op != "" {
			if _, err := ptmx.Write([]byte(st.op + "\n")); err != nil {
				t.Fatal(err)
			}
		}
		want = append(want, st.want...)
		scr.waitForSequences(t, len(want))
	}
	// End of input (Ctrl-D on an empty line): the chat detaches and exits.
	if _, err := ptmx.Write([]byte{4}); err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatalf("examples/chat: %v; output %q", err, scr.bytes())
	}
	want = append(want, "9;4;0") // Detach releases: cleared
	if diff := cmp.Diff(oscs(scr.bytes()), want); diff != "" {
		t.Errorf("sequences on the terminal (-got +want):\n%s\nraw output: %q", diff, scr.bytes())
	}
}

// TestChatInterruptedLeavesNoSpinner interrupts the chat example while it
// shows progress: DetachOnSignal releases the adapter, so the last thing
// on the terminal is the clear.
func TestChatInterruptedLeavesNoSpinner(t *testing.T) {
	cmd, scr, ptmx, wait := startChat(t, "")
	scr.waitFor(t, []byte("\x1b]9;4;0\x1b\\")) // attached while idle
	if _, err := ptmx.Write([]byte(`{"op":"agent_start"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	scr.waitFor(t, []byte("\x1b]9;4;3\x1b\\"))
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("examples/chat after SIGINT: %v; want it to end as the signal would", err)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("examples/chat ended with %v; want it killed by SIGINT after releasing", exit)
	}
	seqs := oscs(scr.bytes())
	if diff := cmp.Diff(seqs, []string{"9;4;0", "9;4;3", "9;4;0"}); diff != "" {
		t.Errorf("sequences on the terminal (-got +want):\n%s\nraw output: %q", diff, scr.bytes())
	}
}
