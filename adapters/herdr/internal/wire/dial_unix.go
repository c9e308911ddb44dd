//go:build !windows

package wire

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
)

// dial connects to the Unix socket at socket. A Unix connect does not wait
// for the server: it succeeds, or fails at once (nothing listens, the
// backlog is full), so ctx is only checked before it. Dialling with ctx
// itself would start a goroutine per connection to watch it, for nothing.
func dial(ctx context.Context, socket string) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var d net.Dialer
	return d.DialContext(context.Background(), "unix", socket)
}

// notRunning: no socket file, or a socket file nobody listens on.
func notRunning(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// PipeName returns the endpoint [Dial] connects to for socket: on Unix the
// socket path itself.
func PipeName(socket string) string { return socket }
