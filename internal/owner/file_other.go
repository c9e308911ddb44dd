//go:build !unix

package owner

import (
	"errors"
	"os"
)

// checkOwner accepts everything: on Windows the directory lives under
// %LOCALAPPDATA%, whose access control list already keeps other users out;
// Unix modes do not apply.
func checkOwner(os.FileInfo, string, os.FileMode) error { return nil }

// openNoFollow opens path read-write, creating it, and refuses a symbolic
// link. Windows has no O_NOFOLLOW: the path is checked with Lstat before
// the open and the open file compared with it after, so that a link planted
// between the two is refused too.
func openNoFollow(path string) (*os.File, error) {
	before, err := os.Lstat(path)
	switch {
	case err == nil && !before.Mode().IsRegular():
		return nil, errors.New("is a symbolic link or not a regular file; refusing it")
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	after, err1 := os.Lstat(path)
	opened, err2 := f.Stat()
	if err := errors.Join(err1, err2); err != nil {
		f.Close()
		return nil, err
	}
	if !after.Mode().IsRegular() || !os.SameFile(after, opened) {
		f.Close()
		return nil, errors.New("was replaced by a symbolic link while opening; refusing it")
	}
	return f, nil
}
