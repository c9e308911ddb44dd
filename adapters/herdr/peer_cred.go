//go:build linux || darwin || freebsd

package herdr

import (
	"net"
	"os"
)

// peerCheck returns the check of the server's user: its uid as the kernel
// recorded it for the connection (sockPeerUID).
func peerCheck() func(net.Conn) error {
	own := os.Getuid()
	return func(c net.Conn) error { return checkPeerUID(c, peerUID, own) }
}

func peerUID(c net.Conn) (int, error) {
	uid := -1
	err := withFD(c, func(fd int) (err error) {
		uid, err = sockPeerUID(fd)
		return err
	})
	return uid, err
}
