//go:build !unix

package herdr

import (
	"errors"
	"net"
)

// peerCheck returns nil where there are no Unix sockets (Windows): no
// check of the server's user is made there (docs/herdr.md, "Whose
// server").
func peerCheck() func(net.Conn) error { return nil }

// socketOwner is not used where no check is made.
func socketOwner(string) (int, error) { return -1, errors.ErrUnsupported }
