//go:build windows

package herdrtest

import (
	"net"
	"os"

	"github.com/Microsoft/go-winio"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
)

// listen serves the named pipe Herdr derives from the socket path and, as
// Herdr 0.8.2 does on Windows (src/ipc.rs; HERDR-0.9.md "Windows"), writes
// a marker file at the path itself. The pipe's default security descriptor
// gives access to its creator and administrators.
func listen(socket string) (net.Listener, error) {
	ln, err := winio.ListenPipe(wire.PipeName(socket), nil)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(socket, nil, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// removeSocket removes the marker file.
func removeSocket(socket string) { _ = os.Remove(socket) }

// maxSocketPath: a pipe name may be up to 256 characters.
const maxSocketPath = 240
