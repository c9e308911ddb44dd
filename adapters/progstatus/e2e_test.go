//go:build linux || darwin

package progstatus_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/testenv"
)

// e2eTimeout bounds each wait in the end-to-end tests: far above what the
// runs need, so that only a hang fails them.
const e2eTimeout = 60 * time.Second

// chatHome makes a HOME whose ~/.chat/agent/settings.json is settings.
func chatHome(t *testing.T, settings string) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, ".chat", "agent")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// screen is the terminal the chat (or tmux's client) writes to.
type screen struct{ *testenv.Screen }

func newScreen() *screen { return &screen{testenv.NewScreen()} }

func (s *screen) copyFrom(r io.Reader) { s.CopyFrom(r) }

func (s *screen) bytes() []byte { return s.Bytes() }

// answerProbe makes the screen answer the probe's query, once, as a
// terminal that reads OSC 7501 does, by writing to w.
func (s *screen) answerProbe(w io.Writer) {
	answered := false
	s.OnRead = func(all []byte) {
		if !answered && bytes.Contains(all, []byte("\x1b]7501;?\x1b\\\x1b[c")) {
			answered = true
			_, _ = w.Write([]byte("\x1b]7501;?\x1b\\\x1b[?62;22c"))
		}
	}
}

// waitRecords blocks until the output holds n records that the strict
// parser applies (the probe's query aside), or fails the test.
func (s *screen) waitRecords(t *testing.T, n int) []rec {
	t.Helper()
	var recs []rec
	s.Wait(t, e2eTimeout, fmt.Sprintf("%d OSC 7501 records", n), func(b []byte) bool {
		got, err := strictParse(withoutQuery(b))
		recs = got
		return err == nil && len(got) >= n
	})
	return recs
}

// turn is the chat session every end-to-end test plays, op by op, and the
// record each op leads to.
var turn = []struct {
	op   string // typed on the terminal; "" for the attach
	want rec
}{
	{"", rec{State: "idle", ID: "chat", App: "chat"}},
	{`{"op":"agent_start"}`, rec{State: "working", ID: "chat", App: "chat"}},
	{`{"op":"prompt_start","id":"p1","kind":"approval"}`, rec{State: "blocked", ID: "chat", Kind: "permission", App: "chat", Msg: "Waiting for approval"}},
	{`{"op":"prompt_end","id":"p1"}`, rec{State: "working", ID: "chat", App: "chat"}},
	{`{"op":"prompt_start","id":"p2","kind":"question"}`, rec{State: "blocked", ID: "chat", Kind: "question", App: "chat", Msg: "Waiting for input"}},
	{`{"op":"prompt_end","id":"p2"}`, rec{State: "working", ID: "chat", App: "chat"}},
	{`{"op":"agent_settled"}`, rec{State: "done", ID: "chat", App: "chat"}},
}

var goodbye = rec{State: "clear", ID: "chat"}

// runChatUnderPTY plays the turn with examples/chat on a real pty, with
// the environment env and the extra args, and returns every record it
// wrote, the goodbye included. Each op is typed only once the previous
// one's record has arrived: no sleep decides the order.
func runChatUnderPTY(t *testing.T, env []string, answerProbe bool, args ...string) []rec {
	t.Helper()
	bin := testenv.Chat(t)
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 120})
	if err != nil {
		t.Fatalf("starting examples/chat under a pty: %v", err)
	}
	scr := newScreen()
	if answerProbe {
		scr.answerProbe(ptmx)
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		scr.copyFrom(ptmx)
	}()
	done := false
	t.Cleanup(func() {
		if !done {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			<-copied
		}
		ptmx.Close()
	})
	for i, step := range turn {
		if step.op != "" {
			if _, err := ptmx.Write([]byte(step.op + "\n")); err != nil {
				t.Fatal(err)
			}
		}
		scr.waitRecords(t, i+1)
	}
	if _, err := ptmx.Write([]byte{4}); err != nil { // Ctrl-D: end of input, the chat detaches
		t.Fatal(err)
	}
	err = cmd.Wait()
	<-copied
	done = true
	if err != nil {
		t.Fatalf("examples/chat: %v; output %q", err, scr.bytes())
	}
	out := scr.bytes()
	if answerProbe {
		if !bytes.HasPrefix(out, []byte("\x1b]7501;?\x1b\\\x1b[c")) {
			t.Errorf("the probe's query is not the first thing on the terminal: %q", out)
		}
		out = withoutQuery(out)
	}
	recs, err := strictParse(out)
	if err != nil {
		t.Fatalf("a record the terminal would drop: %v; output %q", err, scr.bytes())
	}
	return recs
}

// withoutQuery removes the probe's query, which the chat writes before
// any report when run with --probe: it is no report, and the strict parser
// refuses it as one.
func withoutQuery(out []byte) []byte {
	return bytes.Replace(out, []byte("\x1b]7501;?\x1b\\"), nil, 1)
}

func wantTurn() []rec {
	var want []rec
	for _, s := range turn {
		want = append(want, s.want)
	}
	return append(want, goodbye)
}

// TestChatForcedUnderPTY runs examples/chat on a real pty with
// progstatus.enabled true, in a terminal nothing detects: the whole turn
// arrives as records the strict parser applies, and the goodbye last.
func TestChatForcedUnderPTY(t *testing.T) {
	home := chatHome(t, `{"progstatus": {"enabled": true}}`)
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color"}
	got := runChatUnderPTY(t, env, false, "--project", home)
	if diff := cmp.Diff(got, wantTurn()); diff != "" {
		t.Errorf("records (-got +want):\n%s", diff)
	}
}

// TestChatProbedUnderPTY runs examples/chat with --probe on a pty whose
// terminal answers the OSC 7501 query: with no setting at all, the probe's
// answer turns the adapter on, and the whole turn arrives.
func TestChatProbedUnderPTY(t *testing.T) {
	home := chatHome(t, `{}`)
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color"}
	got := runChatUnderPTY(t, env, true, "--project", home, "--probe")
	if diff := cmp.Diff(got, wantTurn()); diff != "" {
		t.Errorf("records (-got +want):\n%s", diff)
	}
}

// TestChatNotProbedWritesNothing checks the other side: the same chat on a
// pty, neither probed nor forced, writes no OSC 7501 at all.
func TestChatNotProbedWritesNothing(t *testing.T) {
	bin := testenv.Chat(t)
	home := chatHome(t, `{}`)
	cmd := exec.Command(bin, "--project", home, "--script", os.DevNull)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color"}
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var out bytes.Buffer
	_, _ = io.Copy(&out, ptmx) // until the chat exits (EIO)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("examples/chat: %v; output %q", err, out.Bytes())
	}
	if bytes.Contains(out.Bytes(), []byte("\x1b]7501")) {
		t.Errorf("an OSC 7501 sequence with the adapter off: %q", out.Bytes())
	}
	if !strings.Contains(out.String(), "progstatus: adapter inactive") {
		t.Errorf("the chat's start line does not say why progstatus is off: %q", out.String())
	}
}
