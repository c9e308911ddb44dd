package main

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/panestate/panestate/internal/hook"
)

// codexPanePID returns the process whose life the pane's report follows
// for a hook of agent whose agent process is pid, in the pane that pane
// names (its variables; none in a plain terminal tab); false when there is
// none and the event is to be dropped.
//
// Codex 0.169.0 runs the sessions of its TUI in a detached daemon, `codex
// app-server --managed-daemon` (feature daemon_auto_start), which runs
// every hook: the daemon outlives the TUI (/quit leaves it working, and
// fires no SessionEnd), and its environment is that of the TUI that
// started it. For a hook of the daemon, the process to follow is the
// Codex TUI that runs in the pane the hook's variables name: the one
// process of this user named codex, not the daemon, whose own pane
// variables are those. With none (the TUI quit and the daemon works on)
// or more than one (no telling which one the session is), the hook
// reports nothing.
func codexPanePID(agent hook.Agent, pid int, pane []string) (int, bool) {
	if agent != hook.Codex || !isCodexDaemon(pid) {
		return pid, true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	found := 0
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == pid {
			continue
		}
		if _, comm, err := procInfo(p); err != nil || comm != "codex" || isCodexDaemonArgs(procArgs(p)) {
			continue
		}
		environ, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue // another user's process, or gone
		}
		if !slices.Equal(paneVars(strings.Split(strings.TrimRight(string(environ), "\x00"), "\x00")), pane) {
			continue
		}
		if found != 0 {
			return 0, false
		}
		found = p
	}
	return found, found != 0
}

// isCodexDaemon reports whether process pid is Codex's app-server daemon.
func isCodexDaemon(pid int) bool {
	_, comm, err := procInfo(pid)
	return err == nil && comm == "codex" && isCodexDaemonArgs(procArgs(pid))
}

// isCodexDaemonArgs reports whether args are those of Codex's app-server
// (the daemon, and its helper `app-server daemon pid-update-loop`).
func isCodexDaemonArgs(args []string) bool {
	return len(args) > 1 && args[1] == "app-server"
}

// procArgs returns the arguments of process pid (nil when unreadable).
func procArgs(pid int) []string {
	var buf [4096]byte
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00")
}
