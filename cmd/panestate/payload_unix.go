//go:build linux || darwin

package main

import (
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// errPayloadTimeout ends a read of the hook's stdin at payloadTimeout.
var errPayloadTimeout = errors.New("panestate: hook: stdin: no complete event in time")

// boundRead returns r, when it is a file, as a reader whose reads fail with
// errPayloadTimeout once deadline has passed: each read waits for input in
// poll(2), bounded, and then reads what is there. It starts no goroutine
// and uses no poller of the runtime (the hook is a short process). Other
// readers are returned as they are.
func boundRead(r io.Reader, deadline time.Time) io.Reader {
	f, ok := r.(*os.File)
	if !ok {
		return r
	}
	return &pollReader{f: f, fd: int32(f.Fd()), deadline: deadline}
}

// pollReader reads f, each read bounded by deadline.
type pollReader struct {
	f        *os.File
	fd       int32
	deadline time.Time
}

func (p *pollReader) Read(b []byte) (int, error) {
	fds := []unix.PollFd{{Fd: p.fd, Events: unix.POLLIN}}
	for {
		left := time.Until(p.deadline)
		if left <= 0 {
			return 0, errPayloadTimeout
		}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n > 0 {
			return p.f.Read(b) // ready: input, its end, or an error
		}
	}
}
