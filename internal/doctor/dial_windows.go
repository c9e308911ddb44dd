//go:build windows

package doctor

import (
	"context"
	"net"

	"github.com/Microsoft/go-winio"
)

// dial connects to the named pipe Herdr serves on Windows: `\\.\pipe\`
// followed by HERDR_SOCKET_PATH, as the reporter does.
func dial(ctx context.Context, socket string) (net.Conn, error) {
	return winio.DialPipeContext(ctx, `\\.\pipe\`+socket)
}
