//go:build linux || darwin

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/panestate/panestate/internal/hook"
)

// bridgeSupported is true: hooks hand their events to a bridge here.
const bridgeSupported = true

// sendTimeout bounds a hook's hand-over of its event to the bridge.
const sendTimeout = 200 * time.Millisecond

// readyTimeout bounds how long a hook that started a bridge waits for it to
// listen (or to hand the event to the bridge that does), so that the next
// hook finds it and events reach it in the order the hooks ran.
const readyTimeout = 500 * time.Millisecond

// bridgeEventEnv carries the first event from the hook that starts a bridge
// to the bridge (the environment, unlike argv, is private to the user).
const bridgeEventEnv = "PANESTATE_BRIDGE_EVENT"

// deliver hands e to the bridge of its pane and agent, starting one when
// none listens. Outside every pane (pane is empty: a plain terminal tab),
// the bridge is that of the agent's terminal, and without one there is
// nothing to report to. It never waits for the workspace.
func deliver(e hook.Event, env, pane []string) {
	var tty agentTTY // what was found of the agent's terminal; zero: not looked for
	if len(pane) == 0 {
		if tty = findAgentTTY(e.PID); tty.path == "" {
			return
		}
		key, err := terminalKey(tty.fd)
		if err != nil {
			tty.close()
			return
		}
		pane = key
	}
	dir, err := runtimeDir(env)
	if err != nil {
		tty.close()
		return
	}
	line, err := json.Marshal(e)
	if err != nil {
		tty.close()
		return
	}
	line = append(line, '\n')
	p := bridgePaths(dir, e.Agent, pane)
	if send(p.sock, line) == nil || e.Kind == hook.KindSessionEnd {
		tty.close()
		return
	}
	if tty == (agentTTY{}) && e.PID > 0 {
		tty = findAgentTTY(e.PID)
	}
	startBridge(e.Agent, p, line, env, tty)
}

// agentTTY is what a hook found of the agent's terminal: the device it
// opened (fd, path), or why it found none (err). Its zero value says the
// hook did not look.
type agentTTY struct {
	fd   int
	path string
	err  error
}

// findAgentTTY looks for the terminal of the agent process pid
// (agentTerminal).
func findAgentTTY(pid int) agentTTY {
	if pid <= 0 {
		return agentTTY{fd: -1}
	}
	fd, path, err := agentTerminal(pid)
	return agentTTY{fd: fd, path: path, err: err}
}

// close closes the terminal t found, if any.
func (t agentTTY) close() {
	if t.path != "" {
		unix.Close(t.fd)
	}
}

// terminalKey names the terminal open on fd for bridgePaths, in place of a
// pane's variables: its device number. Two tabs never share it; two
// sessions of an agent in one tab do, and hand over as in a pane.
func terminalKey(fd int) ([]string, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	return []string{"tty=" + strconv.FormatUint(uint64(st.Rdev), 16)}, nil
}

// eventTime is the time of an event: the system's monotonic clock, in
// nanoseconds, the same in every process and never set back, unlike the
// wall clock (which NTP or a person can set back, and after which every
// event would look older than the last one applied).
func eventTime() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return time.Now().UnixNano() // cannot happen on Linux or macOS
	}
	return ts.Nano()
}

// paths are a bridge's files in the runtime directory: its socket, its
// lock, its process id, the time of the last event the pane's last bridge
// applied, its log, and what the pane's last bridge found of the agent's
// terminal (for the doctor).
type paths struct {
	sock, lock, pid, last, log, tty string
}

// bridgePaths names the files of the bridge of agent in the pane that the
// pane variables name.
func bridgePaths(dir string, agent hook.Agent, pane []string) paths {
	h := sha256.New()
	h.Write([]byte(agent))
	for _, kv := range pane {
		h.Write([]byte{0})
		h.Write([]byte(kv))
	}
	key := filepath.Join(dir, string(agent)+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	return pathsOf(key)
}

// pathsOf names the files of the bridge whose paths start with key.
func pathsOf(key string) paths {
	return paths{sock: key + ".sock", lock: key + ".lock", pid: key + ".pid", last: key + ".last", log: key + ".log", tty: key + ".tty"}
}

// send writes line to the bridge listening at sock. It does not wait for
// the bridge: the bridge takes connections one at a time, in the order they
// were made, so the next hook's event comes after this one. It uses the
// socket system calls directly, with a send timeout on the socket, rather
// than package net: the hook is a short process, and net's poller (an
// epoll instance and its registrations, set up on first use) cost more than
// the whole hand-over.
func send(sock string, line []byte) error {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	syscall.CloseOnExec(fd)
	// The timeout bounds the connect (a bridge whose backlog is full) and
	// each write (a bridge that does not read).
	tv := syscall.NsecToTimeval(sendTimeout.Nanoseconds())
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv); err != nil {
		return err
	}
	if err := ignoringEINTR(func() error { return syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}) }); err != nil {
		return err
	}
	for len(line) > 0 {
		var n int
		err := ignoringEINTR(func() (err error) { n, err = syscall.Write(fd, line); return err })
		if err != nil {
			return err
		}
		line = line[n:]
	}
	return nil
}

// ignoringEINTR calls f until it returns something other than EINTR.
func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}

// startBridge starts a bridge, detached: a session of its own, stdio on
// /dev/null, the root directory as working directory, and not waited for.
// It hands the bridge the agent's terminal tty, when the hook found one, on
// terminalFD, and closes it here. It waits, up to readyTimeout, until the
// bridge listens or has handed the event to the bridge that does: the
// bridge closes its end of a pipe then.
func startBridge(agent hook.Agent, p paths, line []byte, env []string, tty agentTTY) {
	defer tty.close()
	exe, err := os.Executable()
	if err != nil {
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	defer r.Close()
	cmd := exec.Command(exe, bridgeCommand, string(agent), p.sock, p.lock, p.pid, p.last, p.log)
	cmd.Env = append(withoutKey(withoutKey(env, bridgeEventEnv), bridgeTerminalEnv), bridgeEventEnv+"="+string(line))
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{w} // fd 3: the ready pipe
	switch {
	case tty.err != nil:
		cmd.Env = append(cmd.Env, bridgeTerminalEnv+"="+noTerminal+oneLine(tty.err))
	case tty.path != "":
		// Blocking while it is handed over, so that os.NewFile does not
		// set up the runtime's poller for it; the bridge makes it
		// non-blocking again. Dup'ed, so that the os.File, which closes
		// what it holds, never closes tty.fd too.
		fd, err := unix.Dup(tty.fd)
		if err != nil {
			break
		}
		unix.CloseOnExec(fd)
		_ = unix.SetNonblock(fd, false)
		f := os.NewFile(uintptr(fd), tty.path)
		defer f.Close()
		cmd.ExtraFiles = append(cmd.ExtraFiles, f) // fd 4: the agent's terminal
		cmd.Env = append(cmd.Env, bridgeTerminalEnv+"="+tty.path)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return
	}
	_ = cmd.Process.Release()
	_ = r.SetReadDeadline(time.Now().Add(readyTimeout))
	_, _ = io.Copy(io.Discard, r)
}

// runtimeDirPath is the path of the runtime directory (see runtimeDir).
func runtimeDirPath(env []string) string {
	if base := lookup(env, "XDG_RUNTIME_DIR"); filepath.IsAbs(base) {
		return filepath.Join(base, "panestate")
	}
	base := lookup(env, "TMPDIR")
	if !filepath.IsAbs(base) {
		base = "/tmp"
	}
	return filepath.Join(base, "panestate-"+strconv.Itoa(os.Getuid()))
}

// withoutKey returns env without key.
func withoutKey(env []string, key string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if len(kv) > len(key) && kv[:len(key)] == key && kv[len(key)] == '=' {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// errRuntimeDir is wrapped when the runtime directory is not private.
var errRuntimeDir = errors.New("panestate: runtime directory is not private")

// runtimeDir returns the directory of the bridges' sockets, creating it:
// $XDG_RUNTIME_DIR/panestate, or $TMPDIR/panestate-<uid> (/tmp when TMPDIR
// is unset). It must be a directory (not a link) of this user with mode
// 0700, or nothing is started or sent there.
func runtimeDir(env []string) (string, error) {
	return privateDir(runtimeDirPath(env))
}

// privateDir makes dir (0700) unless it is there, and checks that it is a
// directory (not a link) of this user with mode 0700.
func privateDir(dir string) (string, error) {
	uid := os.Getuid()
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != uid || fi.Mode().Perm() != 0o700 {
		return "", fmt.Errorf("%w: %s", errRuntimeDir, dir)
	}
	return dir, nil
}
