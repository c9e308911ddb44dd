//go:build !windows

package herdr

import (
	"context"
	"net"
)

// dialSocket connects to the Unix socket at path.
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}

// pipeMissing is for Windows named pipes; there are none here.
func pipeMissing(error) bool { return false }
