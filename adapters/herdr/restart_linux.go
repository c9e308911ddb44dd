package herdr

import (
	"errors"

	"golang.org/x/sys/unix"
)

// readServerFile reads the identity of the file at path with one statx:
// the birth time when the file system has one, else the modification time.
// Where statx fails for another reason than a missing file (a kernel
// before 4.11, a seccomp filter that refuses it) it takes plain stat's
// modification time.
func readServerFile(path string) (serverFile, bool) {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_INO|unix.STATX_MTIME|unix.STATX_BTIME, &st)
	if err != nil && !errors.Is(err, unix.ENOENT) {
		var s unix.Stat_t
		if unix.Stat(path, &s) != nil {
			return serverFile{}, false
		}
		return serverFile{dev: uint64(s.Dev), ino: uint64(s.Ino), sec: int64(s.Mtim.Sec), nsec: int64(s.Mtim.Nsec)}, true
	}
	if err != nil {
		return serverFile{}, false
	}
	t := st.Mtime
	f := serverFile{dev: unix.Mkdev(st.Dev_major, st.Dev_minor), ino: st.Ino}
	if st.Mask&unix.STATX_BTIME != 0 {
		f.birth, t = true, st.Btime
	}
	f.sec, f.nsec = t.Sec, int64(t.Nsec)
	return f, true
}
