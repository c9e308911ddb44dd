//go:build linux || darwin

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
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
	_ = os.WriteFile(p.pid, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	defer os.Remove(p.pid)
	_ = os.WriteFile(p.tty, []byte(found+"\n"), 0o600)
	b := &bridge{agent: agent, ln: ln, owner: first.PID, idle: idleLimitOf(env), events: make(chan hook.Event, 64), done: make(chan struct{}),
		uidOf: peerUID, logf: fileLog(p.log), exitOf: exitOf, terminal: term}
	last := b.run(ctx, env, first)
	_ = os.WriteFile(p.last, []byte(strconv.FormatInt(last, 10)+"\n"), 0o600)
	return 0
}

// readLast reads the time of the last event the pane's last bridge
// applied (0 when none).
func readLast(path string) int64 {
	b, err := os.ReadFile(path)
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
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		lctx, lcancel := context.WithTimeout(ctx, wait)
		unlock, err := filelock.LockContext(lctx, p.lock)
		lcancel()
		if err == nil {
			_ = os.Remove(p.sock)
			ln, err := net.Listen("unix", p.sock)
			if err != nil {
				_ = unlock()
				return nil, nil
			}
			return ln, unlock
		}
		if send(p.sock, line) == nil || ctx.Err() != nil {
			return nil, nil
		}
	}
}

// bridge holds one pane's registry for one agent process.
type bridge struct {
	agent  hook.Agent
	ln     net.Listener
	owner  int           // the agent's process
	idle   time.Duration // the idle limit
	events chan hook.Event
	done   chan struct{} // closed when run no longer takes events
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
	var shown string
	var tr transcript
	tr.follow(first)
	pane, token := tracker.Apply(first)
	show(store, b.agent, &shown, pane)
	showSubagent(store, first)

	// Take hooks' events from now on: they queue while the registry
	// attaches.
	var accepting sync.WaitGroup
	accepting.Go(b.accept)
	var reg *registry.Registry
	defer func() {
		// Stop taking events (new hooks now start a new bridge, which waits
		// for the lock), release, then let the connections in flight end.
		b.ln.Close()
		if reg != nil {
			_ = reg.Detach(context.Background())
		}
		close(b.done)
		accepting.Wait()
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
	for !pane.End {
		select {
		case <-ctx.Done():
			return tracker.Last()
		case <-idle.C:
			return tracker.Last()
		case <-exited:
			return tracker.Last()
		case <-watch.C:
			if b.owner > 0 && !proc.Alive(b.owner) {
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
			if e.PID != b.owner && b.owner > 0 {
				continue // another agent in this pane (one the agent started)
			}
			idle.Reset(b.idle)
			tr.follow(e)
			pane, token = tracker.Apply(e)
			show(store, b.agent, &shown, pane)
			if tracker.Last() == e.Time { // applied, not older than the newest
				showSubagent(store, e)
			}
			arm(token)
		}
	}
	return tracker.Last()
}

// accept takes hooks' connections until the listener closes, one at a
// time, in the order they were made (the order the hooks ran: each hook
// has connected and written before it exits), so that their events are
// queued in that order.
func (b *bridge) accept() {
	for {
		c, err := b.ln.Accept()
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
	e, err := decodeEvent(b.agent, line)
	if err != nil {
		return
	}
	select {
	case b.events <- e:
	case <-b.done:
	}
}
