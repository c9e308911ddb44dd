//go:build darwin || freebsd

package herdr

import (
	"os"
	"syscall"
)

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
	t := st.Mtimespec
	f := serverFile{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	if st.Birthtimespec.Sec > 0 {
		f.birth, t = true, st.Birthtimespec
	}
	f.sec, f.nsec = int64(t.Sec), int64(t.Nsec)
	return f, true
}
