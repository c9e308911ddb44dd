//go:build linux || darwin

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/panestate/panestate/internal/hook"
)

// terminalFD is the descriptor of the agent's terminal in a bridge, when
// the hook that started it found one (bridgeTerminalEnv says so).
const terminalFD = 4

// bridgeTerminalEnv names, for the bridge, the terminal the hook handed it
// on terminalFD, or, after noTerminal, why the hook found none.
const bridgeTerminalEnv = "PANESTATE_BRIDGE_TERMINAL"

// noTerminal starts bridgeTerminalEnv when the hook handed no terminal.
const noTerminal = "none: "

// TerminalError says why a terminal was not used: the bridge writes the
// agent's state only to a terminal device of this user, opened so that it
// never becomes anyone's controlling terminal and a write never blocks.
type TerminalError struct {
	Path string // the device, or the link that named it
	Why  string
}

func (e *TerminalError) Error() string {
	return "panestate: terminal " + e.Path + ": " + e.Why
}

// errTerminalBusy is a write the terminal did not take at once (output
// stopped with Ctrl-S, or its buffer full): the registry tries again.
var errTerminalBusy = errors.New("panestate: terminal: not accepting output")

// terminalCandidate is a device that may be the agent's terminal.
type terminalCandidate struct {
	name string // the device's path, which names it
	open string // what to open: the agent's own descriptor in /proc, or name
	rdev uint64 // the device number the open file must have; 0: any (open is the agent's descriptor)
}

// errNoTerminal is agentTerminal's error when the agent has nothing that
// could be a terminal.
var errNoTerminal = errors.New("panestate: the agent's stdin, stdout and stderr are no devices and it has no controlling terminal")

// agentTerminal opens the terminal of the agent process pid, write-only:
// one of the agent's standard descriptors that is a terminal (the pty of
// the tab or pane it runs in, also when it runs its hooks without one),
// else the agent's controlling terminal (controllingTerminal), unless it
// was refused already as one of them. It returns the
// descriptor and the device's path, or a TerminalError per candidate
// refused. It never reads from the terminal.
func agentTerminal(pid int) (int, string, error) {
	var errs []error
	try := func(c terminalCandidate) (int, bool) {
		fd, err := openTerminalAs(c)
		if err != nil {
			errs = append(errs, err)
			return -1, false
		}
		return fd, true
	}
	for _, c := range agentStdTerminals(pid) {
		if fd, ok := try(c); ok {
			return fd, c.name, nil
		}
	}
	c, ok := controllingTerminal(pid)
	if ok && !slices.ContainsFunc(errs, func(err error) bool {
		var te *TerminalError
		return errors.As(err, &te) && te.Path == c.name
	}) {
		if fd, ok := try(c); ok {
			return fd, c.name, nil
		}
	}
	if len(errs) == 0 {
		return -1, "", errNoTerminal
	}
	return -1, "", errors.Join(errs...)
}

// devicePath returns the path in /dev of the character device numbered
// rdev: guess when it is that device, else the first /dev/tty* that is;
// "" when none is.
func devicePath(rdev uint64, guess string) string {
	isDev := func(path string) bool {
		var st unix.Stat_t
		return unix.Stat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR && uint64(st.Rdev) == rdev
	}
	if guess != "" && isDev(guess) {
		return guess
	}
	entries, err := os.ReadDir("/dev")
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if path := "/dev/" + e.Name(); strings.HasPrefix(e.Name(), "tty") && e.Name() != "tty" && isDev(path) {
			return path
		}
	}
	return ""
}

// openTerminal opens path write-only, with O_NOCTTY (it never becomes this
// process's controlling terminal), O_CLOEXEC and O_NONBLOCK (a terminal
// whose output is stopped makes a write fail, not hang), and checks it is
// a terminal of this user.
func openTerminal(path string) (int, error) {
	return openTerminalAs(terminalCandidate{name: path, open: path})
}

// openTerminalAs is openTerminal of c: it opens c.open, checks that the
// device opened is c.rdev (unless 0), and names the device c.name. What is
// not a character device of this user is refused before it is opened (an
// open can have effects: a FIFO's reader wakes, some devices act on it);
// what is opened is checked again.
func openTerminalAs(c terminalCandidate) (int, error) {
	var st unix.Stat_t
	if err := unix.Stat(c.open, &st); err != nil {
		return -1, &TerminalError{Path: c.name, Why: "cannot open it: " + err.Error()}
	}
	if why := checkOwnDevice(&st); why != "" {
		return -1, &TerminalError{Path: c.name, Why: why}
	}
	fd, err := ignoringEINTRFD(func() (int, error) {
		return unix.Open(c.open, unix.O_WRONLY|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	})
	if err != nil {
		return -1, &TerminalError{Path: c.name, Why: "cannot open it: " + err.Error()}
	}
	why := checkTerminal(fd)
	if why == "" && c.rdev != 0 {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || uint64(st.Rdev) != c.rdev {
			why = "not the agent's terminal (another device by now)"
		}
	}
	if why != "" {
		unix.Close(fd)
		return -1, &TerminalError{Path: c.name, Why: why}
	}
	return fd, nil
}

// checkTerminal says why the open descriptor fd is not a terminal this
// process may write the state to ("" when it is): a character device
// owned by this user that answers a terminal's ioctl.
func checkTerminal(fd int) string {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "cannot stat it: " + err.Error()
	}
	if why := checkOwnDevice(&st); why != "" {
		return why
	}
	if _, err := unix.IoctlGetTermios(fd, ioctlReadTermios); err != nil {
		return "not a terminal"
	}
	return ""
}

// checkOwnDevice says why st is not a character device owned by this user
// ("" when it is).
func checkOwnDevice(st *unix.Stat_t) string {
	if st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return "not a character device"
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Sprintf("owned by user %d, not by this user (%d)", st.Uid, os.Getuid())
	}
	return ""
}

// ignoringEINTRFD calls f until it returns something other than EINTR.
func ignoringEINTRFD(f func() (int, error)) (int, error) {
	for {
		fd, err := f()
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// oneLine is err's message on one line, each joined error's "panestate: "
// prefix dropped.
func oneLine(err error) string {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "panestate: ")
	}
	return strings.Join(lines, "; ")
}

// ttyWriter writes to a terminal opened with O_NONBLOCK, with write(2)
// itself: os.File would wait in the runtime's poller for a terminal whose
// output is stopped, and so would the registry's adapter. A write the
// terminal does not take at once fails with errTerminalBusy.
type ttyWriter struct{ fd int }

var _ io.WriteCloser = ttyWriter{}

// Write writes p in one write(2) call (the adapters write each sequence in
// one Write, and a sequence never lands in two pieces unless the terminal
// took only part of it: io.ErrShortWrite then).
func (w ttyWriter) Write(p []byte) (int, error) {
	n, err := ignoringEINTRFD(func() (int, error) { return unix.Write(w.fd, p) })
	switch {
	case err == unix.EAGAIN:
		return 0, errTerminalBusy
	case err != nil:
		return max(n, 0), err
	case n < len(p):
		return n, io.ErrShortWrite
	}
	return n, nil
}

// Close closes the terminal.
func (w ttyWriter) Close() error { return unix.Close(w.fd) }

// lastTerminal is what the last bridge of agent in the pane env names found
// of the agent's terminal ("writes to terminal /dev/pts/3", "found no
// terminal: ..."), or "" when no bridge ran there. Outside every pane it is
// the bridge of the plain terminal tab this process runs in (the first of
// its stdin, stdout and stderr that is a terminal: the doctor run in the
// agent's tab), or "" when it runs on none.
func lastTerminal(agent hook.Agent, env []string) string {
	pane := paneVars(env)
	if len(pane) == 0 {
		pane = ownTerminalKey()
		if pane == nil {
			return ""
		}
	}
	b, err := readPrivate(bridgePaths(runtimeDirPath(env), agent, pane).tty)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// ownTerminalKey is terminalKey of this process's terminal, the first of
// its stdin, stdout and stderr that is one of this user's; nil when none
// is.
func ownTerminalKey() []string {
	for fd := range 3 {
		if checkTerminal(fd) != "" {
			continue
		}
		if key, err := terminalKey(fd); err == nil {
			return key
		}
	}
	return nil
}
