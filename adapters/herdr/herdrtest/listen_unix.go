//go:build !windows

package herdrtest

import (
	"errors"
	"io/fs"
	"net"
	"os"
)

// listen listens on the Unix socket at socket, mode 0600 as Herdr's
// (CONTRACT §1.6). A stale socket file is removed first.
func listen(socket string) (net.Listener, error) {
	if fi, err := os.Lstat(socket); err == nil && fi.Mode().Type() == fs.ModeSocket {
		_ = os.Remove(socket)
	}
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(socket, 0o600); err != nil {
		return nil, errors.Join(err, ln.Close())
	}
	return ln, nil
}

// removeSocket: closing a Unix listener removes its file already.
func removeSocket(string) {}

// maxSocketPath is the longest socket path that fits sun_path on every Unix
// (104 bytes with the NUL on macOS and the BSDs, 108 on Linux).
const maxSocketPath = 103
