//go:build !windows

package wire

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
)

func dial(ctx context.Context, socket string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", socket)
}

// notRunning: no socket file, or a socket file nobody listens on.
func notRunning(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// PipeName returns the endpoint [Dial] connects to for socket: on Unix the
// socket path itself.
func PipeName(socket string) string { return socket }
