//go:build linux || darwin

package herdrtest

import "net"

// peerPID returns the pid of the process at the other end of c, as the
// kernel saw it connect (sockPeerPID), or 0.
func peerPID(c net.Conn) int {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	_ = raw.Control(func(fd uintptr) { pid = sockPeerPID(int(fd)) })
	return pid
}
