package herdr

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerCheck returns the check of the server's user: its uid as the kernel
// recorded it when it listened (SO_PEERCRED).
func peerCheck() func(net.Conn) error {
	return func(c net.Conn) error { return checkPeerUID(c, peerUID) }
}

func peerUID(c net.Conn) (int, error) {
	uid := -1
	err := withFD(c, func(fd int) error {
		cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err == nil {
			uid = int(cred.Uid)
		}
		return err
	})
	return uid, err
}
