//go:build windows

package wire

import (
	"context"
	"net"
	"time"
)

// dialExchange connects to the named pipe of socket for one exchange,
// through package net's connection: its deadline is the connection's, and
// ctx and closed end a blocked exchange by moving that deadline to the
// past. The dial waits while every instance of the pipe is busy, so it is
// bounded by deadline and closed too ([dialContext]).
func dialExchange(ctx context.Context, socket string, deadline time.Time, closed context.Context) (exchangeConn, error) {
	dctx, cancel := dialContext(ctx, deadline, closed)
	conn, err := Dial(dctx, socket)
	cancel()
	if err != nil {
		return nil, err
	}
	return pipeConn{conn}, nil
}

type pipeConn struct{ net.Conn }

func (c pipeConn) bound(t time.Time) error { return c.SetDeadline(t) }
func (c pipeConn) interrupt()              { _ = c.SetDeadline(time.Unix(1, 0)) }
