//go:build !unix

package herdrtest

import (
	"net"
	"syscall"
)

// rawConn: this platform has no timer-free attempt (readNow, writeNow).
func rawConn(net.Conn) syscall.RawConn { return nil }

// readNow never reads here: the caller waits with its deadline.
func readNow(syscall.RawConn, []byte) (int, bool, error) { return 0, false, nil }

// writeNow never writes here: the caller writes with its deadline.
func writeNow(syscall.RawConn, []byte) (int, bool, error) { return 0, false, nil }
