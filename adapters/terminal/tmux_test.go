//go:build linux || darwin

package terminal_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

// tmuxVersion reads "tmux 3.7c" (or "tmux next-3.8") from bin -V.
func tmuxVersion(t *testing.T, bin string) (major, minor int) {
	t.Helper()
	out, err := exec.Command(bin, "-V").Output()
	if err != nil {
		t.Fatalf("%s -V: %v", bin, err)
	}
	m := regexp.MustCompile(`(\d+)\.(\d+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("%s -V says %q", bin, out)
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor
}

// TestChatInTmuxPane runs examples/chat in a pane of a private tmux
// server, with nothing set but what tmux itself puts in the pane's
// environment. Inside tmux 3.7 or later the terminal adapter reports
// there, and the pane's #{pane_pb_state} follows the turn (indeterminate,
// paused, hidden); inside an older tmux it stays off and the pane gets no
// OSC 9;4. The pane's output is read through pipe-pane, which tmux feeds
// in the same step in which it parses that output, so a sequence read
// there is already in #{pane_pb_state}.
func TestChatInTmuxPane(t *testing.T) {
	bin := testenv.Tmux(t)
	major, minor := tmuxVersion(t, bin)
	shows := major > 3 || major == 3 && minor >= 7
	chat := testenv.Chat(t)
	home := t.TempDir()
	dir, err := os.MkdirTemp("", "pst") // short: a socket path holds 104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock, fifo := filepath.Join(dir, "s"), filepath.Join(dir, "pane")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color"}
	tmux := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-S", sock, "-f", os.DevNull}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %q: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	// The pane waits for one line before it starts the chat, so that
	// pipe-pane is in place before its first sequence.
	tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "20",
		"sh", "-c", `read go && exec "$0" --project "$1"`, chat, home)
	t.Cleanup(func() {
		// By socket, never by name: the user's own server is never touched.
		cmd := exec.Command(bin, "-S", sock, "kill-server")
		cmd.Env = env
		_ = cmd.Run()
	})
	pane := tmux("display-message", "-p", "-t", "t", "#{pane_id}")
	scr := newScreen()
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		f, err := os.Open(fifo) // blocks until pipe-pane's cat opens it
		if err != nil {
			return
		}
		defer f.Close()
		scr.copyFrom(f) // until the pane, and so cat, is gone
	}()
	tmux("pipe-pane", "-O", "-t", pane, "cat > "+fifo)
	typeLine := func(line string) {
		tmux("send-keys", "-t", pane, "-l", line, ";", "send-keys", "-t", pane, "Enter")
	}
	typeLine("go")
	// The line that says who listens: the tmux adapter, and the terminal
	// adapter only from 3.7 on.
	if shows {
		scr.waitFor(t, []byte("chat: reporting to terminal, tmux\r\n"))
	} else {
		scr.waitFor(t, []byte("chat: reporting to tmux\r\n"))
	}
	steps := []struct {
		op    string
		seqs  int    // OSC 9;4 sequences on the pane by then
		state string // #{pane_pb_state} then
	}{
		{"", 1, "hidden"},
		{`{"op":"agent_start"}`, 2, "indeterminate"},
		{`{"op":"prompt_start","id":"p1","kind":"approval"}`, 3, "paused"},
		{`{"op":"prompt_end","id":"p1"}`, 4, "indeterminate"},
		{`{"op":"agent_settled"}`, 5, "hidden"},
	}
	for _, st := range steps {
		if st.op != "" {
			typeLine(st.op)
		}
		if !shows {
			continue
		}
		scr.waitForSequences(t, st.seqs)
		if got := tmux("display-message", "-p", "-t", pane, "#{pane_pb_state}"); got != st.state {
			t.Errorf("after %q: #{pane_pb_state} = %q; want %q", st.op, got, st.state)
		}
	}
	tmux("send-keys", "-t", pane, "C-d") // end of input: the chat detaches and exits
	<-copied
	out := scr.bytes()
	if !shows && bytes.Contains(out, []byte("\x1b]9;4;")) {
		t.Errorf("tmux %d.%d drops OSC 9;4, yet the chat wrote it: %q", major, minor, out)
	}
	if shows && len(oscs(out)) != 6 { // the five steps, then Detach's clear
		t.Errorf("tmux %d.%d: sequences %q; want the five steps and the release", major, minor, oscs(out))
	}
}
