//go:build linux || darwin

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSendToAHungBridgeReturns: a bridge that no longer accepts (hung, or
// stopped with SIGSTOP) and whose backlog is full does not hold the hook:
// send gives up (its send timeout) instead of waiting for ever in connect.
func TestSendToAHungBridgeReturns(t *testing.T) {
	dir, err := os.MkdirTemp("", "pshung")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "b.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil { // the smallest backlog; never accepted
		t.Fatal(err)
	}
	line := []byte(`{"agent":"claude-code","kind":"turn_start","pid":1,"time":1}` + "\n")
	// Fill the backlog: the first sends are queued; one of the next must
	// fail (a send that waited for ever would end the test at its timeout).
	for i := range 64 {
		if err := send(sock, line); err != nil {
			t.Logf("send %d: %v", i, err)
			return
		}
	}
	t.Error("64 sends to a bridge that accepts nothing all succeeded: the backlog never filled")
}
