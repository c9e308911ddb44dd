//go:build unix

package herdr

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRestartLook: the restart look (serverRestarted) takes a new socket
// at the path for a restart, even when the new file gets the old one's
// inode number back, and, where the file system reports birth times, does
// not take a touch of the socket (a new modification time) for one; where
// it reports none, a touch is a restart, as documented.
func TestRestartLook(t *testing.T) {
	dir, err := os.MkdirTemp("", "hr") // short: a socket path has a small limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s")
	ln := listenUnix(t, path)
	a := &Adapter{socket: path}
	if a.serverRestarted() {
		t.Fatal("the first look saw a restart")
	}
	if a.serverRestarted() {
		t.Fatal("a second look at the same socket saw a restart")
	}

	first, _ := readServerFile(path)
	born := modTime(t, path) // the socket's time when it was made
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil { // touch
		t.Fatal(err)
	}
	if got, want := a.serverRestarted(), !first.birth; got != want {
		t.Errorf("after a touch: restarted = %v, want %v (birth times: %v)", got, want, first.birth)
	}

	// A real restart: the socket removed (the old server closes it) and
	// bound again, once the file system's clock has moved past the old
	// file's time, as it has by the time a real server starts.
	ino := inode(t, path)
	ln.Close()
	waitFileClock(t, dir, born)
	listenUnix(t, path)
	t.Logf("the new socket reuses the old one's inode number: %v", inode(t, path) == ino)
	if !a.serverRestarted() {
		t.Errorf("a socket removed and bound again was not seen as a restart (inode reused: %v)", inode(t, path) == ino)
	}
	if a.serverRestarted() {
		t.Error("the restarted server's socket, looked at again, was seen as another restart")
	}
}

func listenUnix(t *testing.T, path string) net.Listener {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return uint64(fi.Sys().(*syscall.Stat_t).Ino)
}

func modTime(t *testing.T, path string) time.Time {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

// waitFileClock creates and removes files in dir until the file system
// stamps a new file with another time than old: its clock ticks in steps
// of a few milliseconds.
func waitFileClock(t *testing.T, dir string, old time.Time) {
	t.Helper()
	probe := filepath.Join(dir, "probe")
	for {
		if err := os.WriteFile(probe, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		stamped := modTime(t, probe)
		if err := os.Remove(probe); err != nil {
			t.Fatal(err)
		}
		if !stamped.Equal(old) {
			return
		}
	}
}
