//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package probe

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

func run(ctx context.Context, path string, wait time.Duration) (res Result, err error) {
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("probe: %w", err)
	}
	// A blocking descriptor of its own, outside Go's poller, so that the
	// read timeout of raw mode (VTIME) bounds each read and no goroutine
	// or deadline is needed.
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return Result{}, fmt.Errorf("probe: open %s: %w", path, err)
	}
	defer unix.Close(fd)
	old, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return Result{}, fmt.Errorf("probe: %s is not a terminal: %w", path, err)
	}
	raw := *old
	raw.Lflag &^= unix.ECHO | unix.ICANON
	raw.Cc[unix.VMIN] = 0
	raw.Cc[unix.VTIME] = 1 // a read returns after a tenth of a second without input
	if err := unix.IoctlSetTermios(fd, setTermios, &raw); err != nil {
		return Result{}, fmt.Errorf("probe: raw mode: %w", err)
	}
	defer func() {
		// TCSETS, not TCSETSF: flushing would drop input the host's TUI
		// is owed (keys typed after the answers).
		if rerr := unix.IoctlSetTermios(fd, setTermios, old); rerr != nil && err == nil {
			err = fmt.Errorf("probe: restoring the terminal's mode: %w", rerr)
		}
	}()

	start := time.Now()
	if _, err := unix.Write(fd, []byte(Query)); err != nil {
		return Result{}, fmt.Errorf("probe: write: %w", err)
	}
	var s scanner
	buf := make([]byte, 256)
	for time.Since(start) < wait {
		if err := ctx.Err(); err != nil {
			return Result{Answer: s.answer(), Elapsed: time.Since(start)}, fmt.Errorf("probe: %w", err)
		}
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return Result{Answer: s.answer(), Elapsed: time.Since(start)}, fmt.Errorf("probe: read: %w", err)
		}
		if n > 0 && s.feed(buf[:n]) {
			break
		}
	}
	return Result{Answer: s.answer(), Elapsed: time.Since(start)}, nil
}
