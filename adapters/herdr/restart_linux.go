package herdr

import (
	"errors"

	"golang.org/x/sys/unix"
)

// serverFile is what tells one socket file from another (serverRestarted).
type serverFile struct {
	dev, ino uint64
	birth    bool // t is the birth time, not the modification time
	t        unix.StatxTimestamp
}

// same reports whether f and g are one file, not another made at its path.
func (f serverFile) same(g serverFile) bool { return f == g }

// readServerFile reads the identity of the file at path with one statx:
// the birth time when the file system has one, else the modification time.
// On a kernel without statx (before 4.11) it takes the stat fallback.
func readServerFile(path string) (serverFile, bool) {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_INO|unix.STATX_MTIME|unix.STATX_BTIME, &st)
	if errors.Is(err, unix.ENOSYS) {
		var s unix.Stat_t
		if unix.Stat(path, &s) != nil {
			return serverFile{}, false
		}
		return serverFile{dev: s.Dev, ino: s.Ino, t: unix.StatxTimestamp{Sec: s.Mtim.Sec, Nsec: uint32(s.Mtim.Nsec)}}, true
	}
	if err != nil {
		return serverFile{}, false
	}
	f := serverFile{dev: unix.Mkdev(st.Dev_major, st.Dev_minor), ino: st.Ino, t: st.Mtime}
	if st.Mask&unix.STATX_BTIME != 0 {
		f.birth, f.t = true, st.Btime
	}
	return f, true
}
