//go:build unix

package owner

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openNoFollow opens path read-write, creating it 0600, without following
// a symbolic link in its last component (O_NOFOLLOW: a link planted there
// fails the open rather than having its target written), and refuses a
// file that is not regular, not this user's, open to others, or with a
// second link (a hard link to a file elsewhere).
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
		return nil, errors.New("is a symbolic link; refusing it")
	}
	if err != nil {
		return nil, errors.Unwrap(err) // the *PathError's path is FileError's
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = errors.New("is not a regular file; refusing it")
	default:
		err = checkOwner(fi, "file", 0o600)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); err == nil && ok && st.Nlink > 1 {
		err = fmt.Errorf("has %d links, a hard link; refusing it", st.Nlink)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkOwner refuses fi unless this user owns it and its mode gives group
// and others nothing: another user who can write there could plant a link
// or a record.
func checkOwner(fi os.FileInfo, what string, want os.FileMode) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, not this user (%d); refusing it", what, st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s has mode %#o, want %#o; refusing it", what, perm, want)
	}
	return nil
}
