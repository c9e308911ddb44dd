//go:build linux || darwin || freebsd

package herdr

// serverFile is what tells one socket file from another (serverRestarted):
// device, inode number and a time, the birth time where the file system
// records one, else the modification time.
type serverFile struct {
	dev, ino  uint64
	birth     bool // sec and nsec are the birth time, not the modification time
	sec, nsec int64
}

// same reports whether f and g are one file, not another made at its path.
func (f serverFile) same(g serverFile) bool { return f == g }
