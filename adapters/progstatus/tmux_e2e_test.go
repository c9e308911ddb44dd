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
	"syscall"
	"testing"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/progstatus"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/internal/testenv"
)

// TestChatForcedInTmuxPane runs examples/chat in a pane of a private tmux
// server with allow-passthrough on and progstatus.enabled true: the pane
// writes every record wrapped in DCS passthrough (read through
// pipe-pane), and tmux forwards each one, unwrapped, to the terminal its
// client runs in (a pty the test reads), where the strict parser applies
// the whole turn and the goodbye. With allow-passthrough off, the same
// turn reaches the client as nothing.
func TestChatForcedInTmuxPane(t *testing.T) {
	for _, passthrough := range []bool{true, false} {
		t.Run(fmt.Sprintf("allow-passthrough=%v", passthrough), func(t *testing.T) {
			testChatInTmux(t, passthrough)
		})
	}
}

func testChatInTmux(t *testing.T, passthrough bool) {
	bin := testenv.Tmux(t)
	chat := testenv.Chat(t)
	home := chatHome(t, `{"progstatus": {"enabled": true}}`)
	dir, err := os.MkdirTemp("", "pst") // short: a socket path holds 104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	fifo := filepath.Join(dir, "pane")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "tmux.conf")
	pt := "off"
	if passthrough {
		pt = "on"
	}
	if err := os.WriteFile(conf, []byte("set -g allow-passthrough "+pt+"\nset -g status off\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color"}
	tmux := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-S", sock, "-f", conf}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %q: %v: %s", args, err, out)
		}
		return string(out)
	}
	// The pane waits for one line before it starts the chat, so that
	// pipe-pane and the client are in place before its first record.
	tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "20",
		"sh", "-c", `read go && exec "$0" --project "$1"`, chat, home)
	t.Cleanup(func() {
		// By socket, never by name: the user's own server is never touched.
		cmd := exec.Command(bin, "-S", sock, "kill-server")
		cmd.Env = env
		_ = cmd.Run()
	})
	pane := strings.TrimSpace(tmux("display-message", "-p", "-t", "t", "#{pane_id}"))
	checkPassthroughDetailed(t, bin, sock, pane, strings.TrimSpace(tmux("display-message", "-p", "#{pid}")), pt)

	// What the pane writes, as tmux reads it from the pane's pty.
	wrapped := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until pipe-pane's cat opens it
		if err != nil {
			wrapped <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f) // until the pane, and so cat, is gone
		wrapped <- b
	}()
	tmux("pipe-pane", "-O", "-t", pane, "cat > "+fifo)

	// A client on a pty: the terminal tmux runs in.
	client := exec.Command(bin, "-S", sock, "attach", "-t", "t")
	client.Env = env
	ptmx, err := pty.StartWithSize(client, &pty.Winsize{Rows: 20, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	scr := newScreen()
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		scr.copyFrom(ptmx)
	}()
	t.Cleanup(func() {
		_ = client.Process.Kill()
		_ = client.Wait()
		ptmx.Close()
		<-copied
	})
	scr.Wait(t, e2eTimeout, "the client's first screen", func(b []byte) bool { return len(b) > 0 }) // attached and drawn

	typeLine := func(line string) {
		tmux("send-keys", "-t", pane, "-l", line, ";", "send-keys", "-t", pane, "Enter")
	}
	typeLine("go")
	for i, step := range turn {
		if step.op != "" {
			typeLine(step.op)
		}
		// With passthrough off nothing reaches the client to wait for:
		// the ops go in at once, and the registry may merge the states
		// between them (it keeps only the newest pending report).
		if passthrough {
			scr.waitRecords(t, i+1)
		}
	}
	tmux("send-keys", "-t", pane, "C-d") // end of input: the chat detaches and exits
	pipe := <-wrapped                    // the pane is gone once its program exits (remain-on-exit is off)
	if pipe == nil {
		t.Fatal("pipe-pane's fifo could not be read")
	}

	// The pane wrote the wrapped form, and only that.
	inner, err := unwrapTmux(pipe)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ReplaceAll(pipe, []byte("\x1b\x1b]7501;"), nil), []byte("\x1b]7501;")) {
		t.Errorf("the pane wrote an unwrapped OSC 7501, which tmux drops: %q", pipe)
	}
	recs, err := strictParse(inner)
	if err != nil {
		t.Fatalf("inside the passthroughs: %v; pane output %q", err, pipe)
	}
	want := wantTurn()
	if !passthrough && len(recs) > 0 {
		// The ops went in at once: only the goodbye is certain to be last.
		recs, want = recs[len(recs)-1:], []rec{goodbye}
	}
	if diff := cmp.Diff(recs, want); diff != "" {
		t.Errorf("records the pane wrote (-got +want):\n%s", diff)
	}

	// What reached the terminal tmux runs in.
	if passthrough {
		got := scr.waitRecords(t, len(turn)+1)
		if diff := cmp.Diff(got, wantTurn()); diff != "" {
			t.Errorf("records tmux forwarded to its terminal (-got +want):\n%s", diff)
		}
	} else if bytes.Contains(scr.bytes(), []byte("\x1b]7501;")) {
		t.Errorf("tmux forwarded OSC 7501 with allow-passthrough off: %q", scr.bytes())
	}
}

// checkPassthroughDetailed opens the adapter as a program in pane would
// (forced, inside tmux) and checks that Details report the pane's
// allow-passthrough as tmux has it, with a diagnostic when it is off.
func checkPassthroughDetailed(t *testing.T, bin, sock, pane, pid, want string) {
	t.Helper()
	var diags []adapter.Diagnostic
	p := adapter.Params{
		Name: "progstatus", App: "chat", Forced: true, Host: tuiRoot, Terminal: new(tty),
		Env:      adapter.Env{"TMUX=" + sock + "," + pid + ",0", "TMUX_PANE=" + pane, "PATH=" + filepath.Dir(bin)},
		Diagnose: func(d adapter.Diagnostic) { diags = append(diags, d) },
	}
	a, err := progstatus.Driver{}.Open(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer optional.Close(t.Context(), a)
	if got := optional.Details(a)["tmux"]; !strings.Contains(got, "allow-passthrough was "+want+" when") {
		t.Errorf("Details say %q; want allow-passthrough %s", got, want)
	}
	if (len(diags) > 0) != (want != "on") {
		t.Errorf("diagnostics %v with allow-passthrough %s", diags, want)
	}
}
