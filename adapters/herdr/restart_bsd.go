//go:build darwin || freebsd

package herdr

import (
	"os"
	"syscall"
)

// serverFile is what tells one socket file from another (serverRestarted).
type serverFile struct {
	dev, ino uint64
	birth    bool // t is the birth time, not the modification time
	t        syscall.Timespec
}

// same reports whether f and g are one file, not another made at its path.
func (f serverFile) same(g serverFile) bool { return f == g }

// readServerFile reads the identity of the file at path with one stat: the
// birth time (st_birthtimespec) when the file system records one, else the
// modification time.
func readServerFile(path string) (serverFile, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return serverFile{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return serverFile{}, false
	}
	f := serverFile{dev: uint64(st.Dev), ino: st.Ino, t: st.Mtimespec}
	if st.Birthtimespec.Sec > 0 {
		f.birth, f.t = true, st.Birthtimespec
	}
	return f, true
}
