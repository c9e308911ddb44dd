package herdrtest

import (
	"net"

	"golang.org/x/sys/windows"
)

// peerPID returns the pid of the named pipe's client, or 0.
func peerPID(c net.Conn) int {
	f, ok := c.(interface{ Fd() uintptr })
	if !ok {
		return 0
	}
	var pid uint32
	if windows.GetNamedPipeClientProcessId(windows.Handle(f.Fd()), &pid) != nil {
		return 0
	}
	return int(pid)
}
