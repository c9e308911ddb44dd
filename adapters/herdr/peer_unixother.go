//go:build unix && !linux && !darwin && !freebsd

package herdr

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// peerCheck returns the check of the server's user. Without a peer
// credential call the adapter reads here, it goes by the owner of the
// socket file, which the server's user created.
func peerCheck() func(net.Conn) error {
	own := os.Getuid()
	return func(c net.Conn) error { return checkPeerUID(c, ownerUID, own) }
}

func ownerUID(c net.Conn) (int, error) {
	fi, err := os.Stat(c.RemoteAddr().String())
	if err != nil {
		return -1, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, errors.New("no owner")
	}
	return int(st.Uid), nil
}
