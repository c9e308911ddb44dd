package probe_test

import (
	"os"

	"golang.org/x/sys/unix"
)

func termios(f *os.File) (unix.Termios, error) {
	t, err := unix.IoctlGetTermios(int(f.Fd()), unix.TIOCGETA)
	if err != nil {
		return unix.Termios{}, err
	}
	return *t, nil
}
