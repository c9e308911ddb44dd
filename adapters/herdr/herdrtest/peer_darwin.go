package herdrtest

import "golang.org/x/sys/unix"

// sockPeerPID returns the pid of the peer of the Unix socket fd
// (LOCAL_PEERPID), or 0.
func sockPeerPID(fd int) int {
	pid, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	if err != nil {
		return 0
	}
	return pid
}
