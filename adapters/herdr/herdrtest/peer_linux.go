package herdrtest

import "golang.org/x/sys/unix"

// sockPeerPID returns the pid of the peer of the Unix socket fd
// (SO_PEERCRED), or 0.
func sockPeerPID(fd int) int {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0
	}
	return int(cred.Pid)
}
