//go:build windows

package wire

import (
	"context"
	"time"
)

// exchange writes line on a new connection to the named pipe of socket
// and reads the response line, through package net's connection: its
// deadline is the connection's, and ctx and g.Closed end a blocked
// exchange by moving that deadline to the past. The dial waits while every
// instance of the pipe is busy, so it is bounded by the deadline and
// g.Closed too ([dialContext]).
func exchange(ctx context.Context, socket string, line []byte, deadline time.Time, g Guard) ([]byte, error) {
	dctx, cancel := dialContext(ctx, deadline, g.Closed)
	conn, err := Dial(dctx, socket)
	cancel()
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if g.Peer != nil {
		if err := g.Peer(conn); err != nil {
			return nil, err
		}
	}
	if closed(g.Stop) { // the last moment before anything leaves
		return nil, ErrNotSent
	}
	if !deadline.IsZero() {
		_ = conn.SetDeadline(deadline)
	}
	for _, done := range []context.Context{ctx, g.Closed} {
		if done != nil && done.Done() != nil {
			stop := context.AfterFunc(done, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
			defer stop()
		}
	}
	if _, err := conn.Write(line); err != nil {
		return nil, &stageError{"send", err}
	}
	resp, err := readResponse(conn, MaxResponse)
	if err != nil {
		return nil, &stageError{"read", err}
	}
	return resp, nil
}
