//go:build !windows

package doctor

import (
	"context"
	"net"
)

// dial connects to Herdr's Unix socket.
func dial(ctx context.Context, socket string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", socket)
}
