//go:build linux || darwin

package progstatus_test

import (
	"os"

	"golang.org/x/sys/unix"
)

// makeRaw turns off the line discipline's processing of f's output and
// input, as a terminal emulator's pty in use by a TUI would have it, but
// keeps IXON, so that Ctrl-S stops its output. It
// reaches the descriptor through SyscallConn, since f.Fd would put f in
// blocking mode and take its deadlines away.
func makeRaw(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ioErr error
	err = rc.Control(func(fd uintptr) {
		var t *unix.Termios
		if t, ioErr = unix.IoctlGetTermios(int(fd), getTermios); ioErr != nil {
			return
		}
		t.Oflag &^= unix.OPOST
		t.Lflag &^= unix.ECHO | unix.ICANON | unix.ISIG | unix.IEXTEN
		t.Iflag &^= unix.ICRNL
		t.Iflag |= unix.IXON
		ioErr = unix.IoctlSetTermios(int(fd), setTermios, t)
	})
	if err != nil {
		return err
	}
	return ioErr
}
