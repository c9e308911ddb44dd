package herdr

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
)

// listenEnv makes the re-executed test binary listen on the Unix socket it
// names, say "ready", and hold until its stdin closes: a server of another
// user when the test starts it under another uid.
const listenEnv = "PANESTATE_HERDR_TEST_LISTEN"

func listenMain(path string) int {
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	os.Stdout.WriteString("ready\n")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// foreignServer starts, as the user nobody (uid 65534), a server that
// reads every connection and never answers, and returns its socket. The
// test must run as root.
func foreignServer(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to start a server as another user")
	}
	dir := t.TempDir()
	// nobody must reach dir (t.TempDir's parent is 0700) and create in it.
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "foreign.sock")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary must be reachable by nobody: copy it into dir.
	bin := filepath.Join(dir, "listen")
	if err := copyFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = []string{listenEnv + "=" + sock}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the server as nobody did not start: %q %v", line, err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	return sock
}

// TestPeerCheckRefusesAnotherUsersServer: run as root, the test starts a
// server as the user nobody (uid 65534), and the platform's real check
// (SO_PEERCRED) refuses it, naming its uid.
func TestPeerCheckRefusesAnotherUsersServer(t *testing.T) {
	sock := foreignServer(t)
	conn, err := wire.Dial(t.Context(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var fe *foreignServerError
	if err := peerCheck()(conn); !errors.As(err, &fe) || fe.uid != 65534 || fe.own != 0 {
		t.Fatalf("peer check of nobody's server = %v, want it refused as uid 65534", err)
	}
}

// TestExchangeRefusesAnotherUsersServer: the same refusal on the path a
// report takes, package wire's blocking exchange (whose connection is not
// a *net.UnixConn), with the check's own error.
func TestExchangeRefusesAnotherUsersServer(t *testing.T) {
	sock := foreignServer(t)
	req := wire.Request{ID: idRequest, Method: wire.MethodPing, Params: []byte("{}")}
	_, err := wire.DoGuarded(t.Context(), sock, req, wire.Guard{Peer: peerCheck()})
	var fe *foreignServerError
	if !errors.As(err, &fe) || fe.uid != 65534 || fe.own != 0 {
		t.Fatalf("exchange with nobody's server = %v, want it refused as uid 65534", err)
	}
}
