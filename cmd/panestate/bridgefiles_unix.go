//go:build linux || darwin

package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// writePrivate writes data to the bridge's file at path by rename: a new
// file beside it (O_EXCL, O_NOFOLLOW, 0600) renamed over path, so that a
// link planted at path is replaced, never written through.
func writePrivate(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // once renamed, nothing is there
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// maxPrivate bounds what readPrivate reads.
const maxPrivate = 4 << 10

// errNotPlain is readPrivate's error for what is not a plain file.
var errNotPlain = errors.New("panestate: not a plain file")

// readPrivate reads the bridge's file at path (at most maxPrivate bytes),
// refusing a link (O_NOFOLLOW) and what is not a plain file (a FIFO, which
// O_NONBLOCK keeps from holding the open, a device).
func readPrivate(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errNotPlain
	}
	return io.ReadAll(io.LimitReader(f, maxPrivate))
}

// openLock opens (creating it, 0600) the bridge's lock file at path,
// without following a link there: a link planted at path is removed and a
// plain file made in its place. What is there and is no plain file is
// refused.
func openLock(path string) (*os.File, error) {
	for range 2 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
		if errors.Is(err, syscall.ELOOP) {
			if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
				_ = os.Remove(path)
				continue
			}
		}
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			f.Close()
			return nil, errNotPlain
		}
		return f, nil
	}
	return nil, errNotPlain
}
