//go:build !linux && !darwin && !freebsd

package herdr

import (
	"os"
	"time"
)

// serverFile is what tells one socket file from another (serverRestarted):
// here, without a birth time this adapter reads, the file's device and
// inode (os.SameFile, through info) and its modification time.
type serverFile struct {
	info  os.FileInfo
	mtime time.Time
	birth bool // always false
}

// same reports whether f and g are one file, unmodified.
func (f serverFile) same(g serverFile) bool {
	return os.SameFile(f.info, g.info) && f.mtime.Equal(g.mtime)
}

func readServerFile(path string) (serverFile, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return serverFile{}, false
	}
	return serverFile{info: fi, mtime: fi.ModTime()}, true
}
