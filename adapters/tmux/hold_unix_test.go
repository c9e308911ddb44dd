//go:build unix

package tmux

import (
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// holdThenRun is the fake's hold mode: a tmux client that is slow to reach
// its server. For a report (an argv without -u) it opens the named pipe of
// fakeHoldEnv, which tells a test that opens its write end that the client
// has started, and reads it to its end; then, like a release at once, it
// becomes the real tmux (fakeRealEnv) with the same argv.
func holdThenRun() int {
	if !slices.Contains(os.Args[1:], "-u") {
		b, err := os.ReadFile(os.Getenv(fakeHoldEnv))
		if err != nil || len(b) != 0 {
			return 3
		}
	}
	real := os.Getenv(fakeRealEnv)
	if err := syscall.Exec(real, append([]string{real}, os.Args[1:]...), os.Environ()); err != nil {
		return 3
	}
	return 0
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// leftBehind reports whether this process was started by
// cmdrun.Runner.Leave: in the session of the shell that started it, in
// that shell's process group, where a call of cmdrun.Runner.Run is in a
// process group of its own inside the test's session.
func leftBehind() bool {
	sid, err := unix.Getsid(0)
	return err == nil && sid == unix.Getpgrp() && sid != os.Getpid()
}
