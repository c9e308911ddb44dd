//go:build windows

package herdr

import (
	"context"
	"errors"
	"net"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// dialSocket connects to the named pipe Herdr serves for the socket path:
// on Windows HERDR_SOCKET_PATH names a marker file, and clients dial
// \\.\pipe\ followed by the path (HERDR-0.9.md, "Windows").
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	return winio.DialPipeContext(ctx, `\\.\pipe\`+path)
}

// pipeMissing reports whether err means no pipe of that name exists.
func pipeMissing(err error) bool {
	return errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND)
}
