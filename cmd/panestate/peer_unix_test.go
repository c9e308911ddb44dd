//go:build linux || darwin

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/hook"
)

// TestBridgeChecksThePeersUser hands a bridge one hook connection per case,
// with the peer's user told by the real check (SO_PEERCRED, LOCAL_PEERCRED)
// or by a stand-in for a process of another user: only this user's event
// is taken; any other connection is logged and nothing of it is read.
func TestBridgeChecksThePeersUser(t *testing.T) {
	event := hook.Event{Agent: hook.ClaudeCode, Kind: hook.KindTurnStart, Session: "s1", PID: 42, Time: 7}
	line, err := json.Marshal(event)
	if err != nil {
		t.Fatal(err)
	}
	line = append(line, '\n')
	me := os.Getuid()
	tests := []struct {
		name      string
		uidOf     func(*net.UnixConn) (int, error)
		wantEvent []hook.Event
		wantLog   []string
	}{
		{name: "this user, the real check", uidOf: peerUID, wantEvent: []hook.Event{event}},
		{
			name:    "another user",
			uidOf:   func(*net.UnixConn) (int, error) { return me + 1, nil },
			wantLog: []string{fmt.Sprintf("refused a connection from user %d: this bridge runs as user %d", me+1, me)},
		},
		{
			name:    "user unknown",
			uidOf:   func(*net.UnixConn) (int, error) { return -1, errors.New("no credentials") },
			wantLog: []string{"refused a connection: cannot tell its user: no credentials"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := os.MkdirTemp("", "pspeer")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			sock := filepath.Join(dir, "b.sock")
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var logged []string
			b := &bridge{agent: hook.ClaudeCode, ln: ln, events: make(chan hook.Event, 1), done: make(chan struct{}),
				uidOf: tt.uidOf, logf: func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }}
			// The hook's side: connected and written once send returns.
			if err := send(sock, line); err != nil {
				t.Fatal(err)
			}
			c, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			b.serve(c)
			close(b.events)
			var got []hook.Event
			for e := range b.events {
				got = append(got, e)
			}
			if diff := cmp.Diff(got, tt.wantEvent); diff != "" {
				t.Errorf("events taken (-got +want):\n%s", diff)
			}
			if diff := cmp.Diff(logged, tt.wantLog); diff != "" {
				t.Errorf("log (-got +want):\n%s", diff)
			}
		})
	}
}

// TestBridgeLogStartsOnItsFirstLine: fileLog creates nothing until it has
// a line to write, then appends, and starts over above maxLog.
func TestBridgeLogStartsOnItsFirstLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.log")
	logf := fileLog(path)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("log file before the first line: %v, want none", err)
	}
	logf("refused a connection from user %d", 1001)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
	if err := os.WriteFile(path, make([]byte, maxLog+1), 0o600); err != nil {
		t.Fatal(err)
	}
	logf("again")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 200 {
		t.Errorf("log of %d bytes after a line past maxLog, want it started over", len(b))
	}
}

// TestBridgeLogDoesNotFollowALink: a link planted at the log's path (to a
// file of the person's, say) is not written through: the line is dropped.
func TestBridgeLogDoesNotFollowALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "b.log")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	fileLog(path)("refused a connection from user %d", 1001)
	b, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(b), "keep\n"); diff != "" {
		t.Errorf("the link's target changed (-got +want):\n%s", diff)
	}
}

// TestBridgeLogDoesNotWaitOnAPipe: a pipe at the log's path, which no one
// reads, does not hold the bridge up (opening it for writing would wait
// for a reader).
func TestBridgeLogDoesNotWaitOnAPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.log")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	// Were the pipe opened as a file, this would wait for ever (the test
	// fails at its timeout).
	fileLog(path)("refused a connection from user %d", 1001)
}
