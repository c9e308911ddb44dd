//go:build windows

package wire

import (
	"context"
	"errors"
	"net"
	"os"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

func dial(ctx context.Context, socket string) (net.Conn, error) {
	return winio.DialPipeContext(ctx, PipeName(socket))
}

// notRunning: no pipe of that name.
func notRunning(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, windows.ERROR_FILE_NOT_FOUND) ||
		errors.Is(err, windows.ERROR_PATH_NOT_FOUND)
}

// PipeName returns the named pipe [Dial] connects to for socket:
// `\\.\pipe\` followed by the socket path, as Herdr's Windows clients
// derive it (CONTRACT §1.6).
func PipeName(socket string) string { return `\\.\pipe\` + socket }
