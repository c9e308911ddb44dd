//go:build darwin || freebsd

package herdr

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerCheck returns the check of the server's user: its effective uid as
// the kernel recorded it (LOCAL_PEERCRED, what getpeereid reads).
func peerCheck() func(net.Conn) error {
	return func(c net.Conn) error { return checkPeerUID(c, peerUID) }
}

func peerUID(c net.Conn) (int, error) {
	uid := -1
	err := withFD(c, func(fd int) error {
		cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if err == nil {
			uid = int(cred.Uid)
		}
		return err
	})
	return uid, err
}
