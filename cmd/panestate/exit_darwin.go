package main

import (
	"sync"

	"golang.org/x/sys/unix"
)

// wake is the ident of the EVFILT_USER event that stop triggers to end the
// wait.
const wake = 1

// exitOf returns a channel closed as soon as process pid exits, and a stop
// function that ends the watch and waits for its goroutine. It waits on a
// kqueue for the process's NOTE_EXIT, which fires when it exits, before
// its parent reaps it: an agent left a zombie by its parent is gone for
// the bridge at once, where the check every watchInterval would not tell a
// zombie from a running process without proc.Alive's sysctl. Where no
// kqueue can be had or the process is already gone, the channel is nil
// (never ready) and that check is all there is.
//
// Untested by the Linux tests (GOOS=darwin go vet only): it is kept to the
// documented kqueue(2) calls.
func exitOf(pid int) (<-chan struct{}, func()) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, func() {}
	}
	unix.CloseOnExec(kq)
	changes := make([]unix.Kevent_t, 2)
	unix.SetKevent(&changes[0], pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	changes[0].Fflags = unix.NOTE_EXIT
	unix.SetKevent(&changes[1], wake, unix.EVFILT_USER, unix.EV_ADD|unix.EV_CLEAR)
	// With no room for events, a change that fails (ESRCH: the process is
	// gone) fails the call.
	if _, err := unix.Kevent(kq, changes, nil, nil); err != nil {
		unix.Close(kq)
		return nil, func() {}
	}
	exited, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		events := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, events, nil)
			if err == unix.EINTR {
				continue
			}
			if err == nil && n == 1 && events[0].Filter == unix.EVFILT_PROC {
				close(exited)
			}
			return
		}
	}()
	return exited, sync.OnceFunc(func() {
		var trigger unix.Kevent_t
		unix.SetKevent(&trigger, wake, unix.EVFILT_USER, 0)
		trigger.Fflags = unix.NOTE_TRIGGER
		_, _ = unix.Kevent(kq, []unix.Kevent_t{trigger}, nil, nil)
		<-ended
		unix.Close(kq)
	})
}
