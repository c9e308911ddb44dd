//go:build unix && !linux && !darwin && !freebsd

package herdr

import (
	"net"
	"os"
)

// peerCheck returns the check of the server's user. Without a peer
// credential call the adapter reads here, it goes by the owner of the
// socket file, which the server's user created.
func peerCheck() func(net.Conn) error {
	own := os.Getuid()
	return func(c net.Conn) error { return checkPeerUID(c, ownerUID, own) }
}

func ownerUID(c net.Conn) (int, error) { return socketOwner(c.RemoteAddr().String()) }
