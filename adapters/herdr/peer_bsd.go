//go:build darwin || freebsd

package herdr

import "golang.org/x/sys/unix"

// sockPeerUID reads the effective uid of the peer of the Unix socket fd
// (LOCAL_PEERCRED, what getpeereid reads).
func sockPeerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
