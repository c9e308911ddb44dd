package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// exitOf returns a channel closed as soon as process pid exits, and a stop
// function that ends the watch and waits for its goroutine. It watches a
// pidfd (Linux 5.10 and later) through the runtime's poller, so the bridge
// learns of its agent's death at once rather than at its next check. Where
// no pidfd can be had, the channel is nil (never ready) and the bridge's
// check every watchInterval is all there is.
func exitOf(pid int) (<-chan struct{}, func()) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return nil, func() {}
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, func() {}
	}
	exited, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		// The pidfd is readable once the process has exited; Read waits
		// for that, or returns an error when stop closes the file.
		err := rc.Read(func(fd uintptr) bool {
			n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0)
			return err == nil && n > 0
		})
		if err == nil {
			close(exited)
		}
	}()
	return exited, func() {
		f.Close()
		<-ended
	}
}
