//go:build linux || darwin

package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/panestate/panestate/internal/filelock"
	"github.com/panestate/panestate/internal/hook"
	"github.com/panestate/panestate/internal/proc"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
)

// readyFD is the descriptor of the ready pipe a hook hands a bridge it
// starts.
const readyFD = 3

// acquireTimeout bounds how long a starting bridge tries to become the
// pane's bridge or to hand its event to the one that is.
const acquireTimeout = 5 * time.Second

// readTimeout bounds a hook's connection to the bridge.
const readTimeout = time.Second

// maxLine bounds an event line.
const maxLine = 4 << 10

// runBridge is the bridge: `__bridge <agent> <sock> <lock> <pidfile>
// <lastfile> <logfile>`, its first event in the environment. It returns
// when the session ends, the agent dies, no hook came for idleLimit, or a
// signal asks, after the pane is released.
func runBridge(args []string, env []string) int {
	if len(args) != 6 {
		return 2
	}
	agent, err := hook.ParseAgent(args[0])
	if err != nil {
		return 2
	}
	p := paths{sock: args[1], lock: args[2], pid: args[3], last: args[4], log: args[5]}
	p.tty = strings.TrimSuffix(p.sock, ".sock") + ".tty"
	line := []byte(lookup(env, bridgeEventEnv))
	env = withoutKey(env, bridgeEventEnv)
	first, err := decodeEvent(agent, line)
	if err != nil {
		return 2
	}
	term, found := takeTerminal(env)
	env = withoutKey(env, bridgeTerminalEnv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)

	// fd 3 is the ready pipe of the hook that started this bridge: closing
	// it tells the hook that its event is with a bridge that listens.
	syscall.CloseOnExec(readyFD)
	ready := os.NewFile(readyFD, "ready")
	ln, unlock := acquire(ctx, p, line)
	if ready != nil {
		ready.Close()
	}
	if ln == nil {
		return 0 // handed over to the pane's bridge, or gave up
	}
	defer unlock()
	// A bridge started late (its process slow to start) must not claim the
	// pane after a newer bridge already ended its session, nor for an
	// agent that is gone. A last event later than now is from an earlier
	// boot (the monotonic clock starts over): it says nothing.
	if last := readLast(p.last); first.Time <= last && last <= eventTime() || (first.PID > 0 && !proc.Alive(first.PID)) {
		ln.Close()
		return 0
	}
	_ = writePrivate(p.pid, []byte(strconv.Itoa(os.Getpid())+"\n"))
	_ = writePrivate(p.tty, []byte(found+"\n"))
	b := &bridge{agent: agent, ln: ln, paths: p, owner: first.PID, idle: idleLimitOf(env), events: make(chan hook.Event, 64), done: make(chan struct{}),
		uidOf: peerUID, logf: fileLog(p.log), exitOf: exitOf, terminal: term, found: found, flushLine: flushMarker(), flushed: make(chan struct{}, 1)}
	last := b.run(ctx, env, first)
	if b.superseded {
		return 0 // the files at p are the new bridge's
	}
	_ = os.Remove(p.pid)
	_ = writePrivate(p.last, []byte(strconv.FormatInt(last, 10)+"\n"))
	return 0
}

// flushMarker returns a new random line for bridge.flushLine.
func flushMarker() []byte {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return []byte("flush " + hex.EncodeToString(b[:]) + "\n")
}

// readLast reads the time of the last event the pane's last bridge
// applied (0 when none).
func readLast(path string) int64 {
	b, err := readPrivate(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n
}

// decodeEvent decodes an event line of agent.
func decodeEvent(agent hook.Agent, line []byte) (hook.Event, error) {
	var e hook.Event
	if err := json.Unmarshal(line, &e); err != nil {
		return e, err
	}
	if e.Agent != agent {
		return e, errors.New("panestate: event of another agent")
	}
	return e, nil
}

// acquire makes this process the pane's bridge: it takes the lock and
// listens on the socket. When another bridge holds the lock, line is handed
// to it as soon as it listens, and acquire returns nil.
func acquire(ctx context.Context, p paths, line []byte) (net.Listener, func() error) {
	ctx, cancel := context.WithTimeout(ctx, acquireTimeout)
	defer cancel()
	lock, err := openLock(p.lock)
	if err != nil {
		return nil, nil
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		if ok, err := filelock.TryLockFile(lock); err != nil {
			lock.Close()
			return nil, nil
		} else if ok {
			ln, err := listen(p.sock)
			if err != nil {
				lock.Close()
				return nil, nil
			}
			return ln, lock.Close // closing the file releases its lock
		}
		if send(p.sock, line) == nil {
			lock.Close()
			return nil, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			lock.Close()
			return nil, nil
		case <-t.C:
		}
	}
}

// listen listens on a new socket at sock, whatever was there removed (only
// the holder of the pane's lock listens there).
func listen(sock string) (net.Listener, error) {
	_ = os.Remove(sock)
	return net.Listen("unix", sock)
}

// closeListeners closes every listener of the bridge, and removes its
// socket file only while that is still its own: a socket at its path that
// another bridge made (relisten) stays.
func (b *bridge) closeListeners() {
	for _, l := range append(b.old, b.ln) {
		if ul, ok := l.(*net.UnixListener); ok {
			ul.SetUnlinkOnClose(false)
		}
		l.Close()
	}
	if fi, err := os.Lstat(b.paths.sock); err == nil && b.sockInfo != nil && os.SameFile(fi, b.sockInfo) {
		_ = os.Remove(b.paths.sock)
	}
}

// relisten listens again when the bridge's socket is no longer at its path
// (a /tmp cleaner removed it, or the runtime directory with it), so that
// later hooks find this bridge rather than start one that cannot take the
// pane's lock. The listener that lost its path keeps accepting what was
// queued on it, and no longer removes the path when it closes. When the
// lock file went too, the bridge takes the lock at the path again first;
// when another bridge took it, that one listens, not this one.
func (b *bridge) relisten() (superseded bool) {
	if fi, err := os.Lstat(b.paths.sock); err == nil && os.SameFile(fi, b.sockInfo) {
		return false
	}
	if fi, err := os.Lstat(b.paths.lock); err != nil || !os.SameFile(fi, b.lockInfo) {
		if _, err := privateDir(filepath.Dir(b.paths.lock)); err != nil {
			return false
		}
		lock, err := openLock(b.paths.lock)
		if err != nil {
			return false
		}
		if ok, err := filelock.TryLockFile(lock); !ok || err != nil {
			lock.Close()
			return err == nil // another bridge's now
		}
		b.locks = append(b.locks, lock)
		b.lockInfo, _ = lock.Stat()
		// Its other files went with the lock's: this bridge is the
		// pane's again.
		_ = writePrivate(b.paths.pid, []byte(strconv.Itoa(os.Getpid())+"\n"))
		_ = writePrivate(b.paths.tty, []byte(b.found+"\n"))
	}
	ln, err := listen(b.paths.sock)
	if err != nil {
		return false // tried again at the next tick
	}
	fi, err := os.Lstat(b.paths.sock)
	if err != nil {
		ln.Close()
		return false
	}
	b.old = append(b.old, b.ln)
	b.ln, b.sockInfo = ln, fi
	b.accepting.Go(func() { b.accept(ln) })
	b.logf("its socket was gone: listens again")
	return false
}

// bridge holds one pane's registry for one agent process.
type bridge struct {
	agent hook.Agent
	ln    net.Listener // where hooks connect
	paths paths
	// sockInfo and lockInfo are the socket ln listens on and the lock file
	// the bridge holds, to tell when they are gone from their paths.
	sockInfo, lockInfo os.FileInfo
	old                []net.Listener // listeners that lost their path (relisten)
	superseded         bool           // another bridge took the lock at its path (relisten)
	found              string         // what the hook found of the agent's terminal, for the .tty file
	locks              []*os.File     // locks taken again (relisten)
	accepting          sync.WaitGroup // the listeners' accept loops
	// flushLine is what the bridge sends itself when its agent exited
	// (flush): a random line no hook sends. flushed takes it.
	flushLine []byte
	flushed   chan struct{}
	owner     int           // the agent's process
	idle      time.Duration // the idle limit
	events    chan hook.Event
	done      chan struct{} // closed when run no longer takes events
	// uidOf returns the user id of the process at the other end of a
	// hook's connection: peerUID, or a test's stand-in.
	uidOf func(*net.UnixConn) (int, error)
	// logf writes a line to the bridge's log: fileLog, or a test's.
	logf func(format string, args ...any)
	// exitOf watches the agent's process: exitOf, or a test's stand-in
	// for a system without pidfds.
	exitOf func(pid int) (<-chan struct{}, func())
	// terminal is the agent's terminal, handed to the registry for the
	// adapters that write to it (terminal, progstatus); nil when the hook
	// found none.
	terminal io.Writer
}

// takeTerminal returns the agent's terminal that the hook starting this
// bridge handed over on terminalFD (bridgeTerminalEnv names it), checked
// again (a terminal device of this user) and made non-blocking, or nil;
// and what was found, for the doctor. The bridge only ever writes to it.
func takeTerminal(env []string) (io.Writer, string) {
	path := lookup(env, bridgeTerminalEnv)
	switch {
	case path == "":
		return nil, "found no terminal: the hook did not look (no agent process)"
	case strings.HasPrefix(path, noTerminal):
		return nil, "found no terminal: " + strings.TrimPrefix(path, noTerminal)
	}
	syscall.CloseOnExec(terminalFD)
	if why := checkTerminal(terminalFD); why != "" {
		_ = unix.Close(terminalFD)
		return nil, "refused terminal " + path + ": " + why
	}
	if err := unix.SetNonblock(terminalFD, true); err != nil {
		_ = unix.Close(terminalFD)
		return nil, "refused terminal " + path + ": " + err.Error()
	}
	return ttyWriter{fd: terminalFD}, "writes to terminal " + path
}

// run reports first and every later event until the end, then releases.
// It returns the time of the newest event applied.
func (b *bridge) run(ctx context.Context, env []string, first hook.Event) int64 {
	store := session.NewStore()
	var tracker hook.Tracker
	var subagents hook.Subagents
	var shown string
	var tr transcript
	tr.follow(first)
	pane, token := tracker.Apply(first)
	show(store, b.agent, &shown, pane)
	showSubagent(store, &subagents, first, true)

	// Take hooks' events from now on: they queue while the registry
	// attaches.
	b.sockInfo, _ = os.Lstat(b.paths.sock)
	b.lockInfo, _ = os.Lstat(b.paths.lock)
	ln := b.ln
	b.accepting.Go(func() { b.accept(ln) })
	var reg *registry.Registry
	defer func() {
		// Stop taking events (new hooks now start a new bridge, which waits
		// for the lock), release, then let the connections in flight end.
		b.closeListeners()
		if reg != nil && !b.superseded {
			_ = reg.Detach(context.Background())
		}
		close(b.done)
		b.accepting.Wait()
		for _, l := range b.locks {
			l.Close()
		}
	}()
	opts := bridgeOptions(b.agent, env, paneVars(env))
	opts.Terminal = b.terminal
	r, err := registry.New(opts)
	if err != nil {
		return tracker.Last()
	}
	if err := r.Attach(ctx, store); err != nil {
		return tracker.Last()
	}
	reg = r

	watch := time.NewTicker(watchInterval)
	defer watch.Stop()
	var exited <-chan struct{} // closed when the agent exits, where the system says so at once
	if b.owner > 0 {
		var stop func()
		exited, stop = b.exitOf(b.owner)
		defer stop()
	}
	idle := time.NewTimer(b.idle)
	defer idle.Stop()
	grace := time.NewTimer(0)
	<-grace.C
	var pending uint64
	arm := func(t uint64) {
		if t != 0 {
			pending = t
			grace.Reset(hook.CodexPermissionGrace)
		}
	}
	arm(token)
	apply := func(e hook.Event) {
		if e.PID != b.owner && b.owner > 0 {
			return // another agent in this pane (one the agent started)
		}
		idle.Reset(b.idle)
		tr.follow(e)
		pane, token = tracker.Apply(e)
		show(store, b.agent, &shown, pane)
		showSubagent(store, &subagents, e, tracker.Last() == e.Time)
		arm(token)
	}
	for !pane.End {
		select {
		case <-ctx.Done():
			return tracker.Last()
		case <-idle.C:
			return tracker.Last()
		case <-exited:
			b.flush(apply, &pane)
			return tracker.Last()
		case <-watch.C:
			if b.owner > 0 && !proc.Alive(b.owner) {
				b.flush(apply, &pane)
				return tracker.Last()
			}
			if b.relisten() {
				// The runtime directory went with the lock, and a hook
				// started another bridge, which holds the pane now and
				// gets every later event. This one ends without a
				// release (as if it had crashed after the hand-over): a
				// release, or its registry's refresh of a state no
				// longer true, would undo what the other one reports.
				b.superseded = true
				b.logf("another bridge took the lock at its path: it ends, leaving the pane to that one")
				return tracker.Last()
			}
			if pane.State != hook.StateIdle {
				// What no hook reports (a rejected permission) is in the
				// records the agent appended since.
				if p, changed := tracker.Observe(tr.scan()); changed {
					pane = p
					show(store, b.agent, &shown, pane)
				}
			}
		case <-grace.C:
			if p, changed := tracker.Expire(pending); changed {
				pane = p
				show(store, b.agent, &shown, pane)
			}
		case e := <-b.events:
			apply(e)
		}
	}
	return tracker.Last()
}

// flushTimeout bounds how long a bridge whose agent exited goes on
// applying the events its hooks handed over before (flush).
const flushTimeout = 2 * time.Second

// flush applies, with apply, every event whose hook connected before the
// agent's exit was seen and that the bridge has not read yet: the agent's
// last hooks (Stop, SessionEnd) return once their event is on the socket,
// and the agent may exit before the bridge, on a loaded machine, has read
// them. It connects to its own socket with flushLine: connections are
// taken in the order they were made, so once that line is read every
// earlier event is in b.events. It ends there, at the session's end, or
// at flushTimeout.
func (b *bridge) flush(apply func(hook.Event), pane *hook.Pane) {
	if send(b.paths.sock, b.flushLine) != nil {
		return
	}
	timeout := time.NewTimer(flushTimeout)
	defer timeout.Stop()
	for !pane.End {
		select {
		case e := <-b.events:
			apply(e)
		case <-b.flushed:
			for !pane.End {
				select {
				case e := <-b.events: // queued before the marker
					apply(e)
				default:
					return
				}
			}
			return
		case <-timeout.C:
			return
		}
	}
}

// accept takes hooks' connections until the listener closes, one at a
// time, in the order they were made (the order the hooks ran: each hook
// has connected and written before it exits), so that their events are
// queued in that order.
func (b *bridge) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		b.serve(c)
	}
}

// maxLog is the size above which the bridge's log starts over.
const maxLog = 64 << 10

// fileLog returns a logger that appends each line, with the time, to the
// file at path, created (0600) on the first line: a bridge that has nothing
// to say leaves no file. A log above maxLog starts over. What is at path
// and is not a plain file (a link, a pipe) is not written to: the line is
// dropped.
func fileLog(path string) func(format string, args ...any) {
	return func(format string, args ...any) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
		if err != nil {
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		if fi.Size() > maxLog {
			_ = f.Truncate(0)
		}
		fmt.Fprintf(f, "%s panestate bridge %d: %s\n", time.Now().UTC().Format(time.RFC3339), os.Getpid(), fmt.Sprintf(format, args...))
	}
}

// peerUID returns the user id of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, uerr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, uerr = socketPeerUID(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, uerr
}

// serve reads one event from a hook's connection, after checking that the
// hook runs as this user. A connection from another user, or whose user
// cannot be told, is logged and closed unread.
func (b *bridge) serve(c net.Conn) {
	defer c.Close()
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return
	}
	uid, err := b.uidOf(uc)
	switch {
	case err != nil:
		b.logf("refused a connection: cannot tell its user: %v", err)
		return
	case uid != os.Getuid():
		b.logf("refused a connection from user %d: this bridge runs as user %d", uid, os.Getuid())
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(readTimeout))
	r := bufio.NewReaderSize(c, maxLine)
	line, err := r.ReadSlice('\n')
	if err != nil {
		return
	}
	if len(b.flushLine) > 0 && bytes.Equal(line, b.flushLine) {
		select {
		case b.flushed <- struct{}{}:
		default:
		}
		return
	}
	e, err := decodeEvent(b.agent, line)
	if err != nil {
		return
	}
	select {
	case b.events <- e:
	case <-b.done:
	}
}
