//go:build unix

package claim

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/panestate/panestate/internal/filelock"
)

// checkDir refuses a directory that is a symbolic link, is not owned by
// this user, or is open to group or others: another user who can write
// there could plant a link or a record.
func checkDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return errors.New("is a symbolic link; refusing it")
	}
	if !fi.IsDir() {
		return errors.New("is not a directory")
	}
	return checkOwner(fi, "directory", 0o700)
}

// openNoFollow opens path read-write, creating it 0600, without following
// a symbolic link in its last component (O_NOFOLLOW: a link planted there
// fails the open rather than having its target truncated or written), and
// refuses a file that is not regular, not this user's, or open to others.
func openNoFollow(path string) (*os.File, error) { return openChecked(path, 0) }

// openChecked is openNoFollow with extra open flags (O_EXCL for a file
// that must be new).
func openChecked(path string, flags int) (*os.File, error) { return openCheckedAs(path, path, flags) }

// openCheckedAs is openChecked, naming the file it returns name: a
// take-over's fresh file, opened under a name of its own, is named by the
// pane file's path, which it takes (its Name is what replaced and
// clearDeadTakeOver look the path up by).
func openCheckedAs(path, name string, flags int) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flags|syscall.O_RDWR|syscall.O_CREAT|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0o600)
		if err != syscall.EINTR {
			break
		}
	}
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
		return nil, errors.New("is a symbolic link; refusing it")
	}
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("is not a regular file; refusing it")
	}
	if err == nil {
		err = checkOwner(fi, "file", 0o600)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); err == nil && ok && st.Nlink > 1 {
		step("open-stat")
		err = oneLink(f, path, st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// oneLink refuses the file f at path, whose information st gave it more
// than one link, unless the second is a take-over's name (takeInProgress)
// or is gone by the time the directory was read: a taker removes that name
// right after its rename, and a process opening the fresh file in that
// moment saw two links in its fstat but no name in its directory read.
// Refusing it there left the call without the pane file, sending a number
// from the clock below the mark it copied.
func oneLink(f *os.File, path string, st *syscall.Stat_t) error {
	if takeInProgress(path, st) {
		return nil
	}
	var now syscall.Stat_t
	if err := fstat(f, &now); err != nil {
		return err
	}
	if now.Nlink > 1 {
		// A hard link to a file elsewhere (which would be overwritten).
		return fmt.Errorf("has %d links, a hard link; refusing it", now.Nlink)
	}
	return nil
}

// takeInProgress reports whether the second link of the file at path,
// whose information is st, is a take-over's name (see takeOver): between
// its rename and the removal of that name, a fresh pane file has two.
func takeInProgress(path string, st *syscall.Stat_t) bool {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), base+".take-") {
			continue
		}
		var ts syscall.Stat_t
		if syscall.Lstat(filepath.Join(dir, e.Name()), &ts) == nil && ts.Dev == st.Dev && ts.Ino == st.Ino {
			return true
		}
	}
	return false
}

// checkOwner refuses fi unless this user owns it and its mode gives group
// and others nothing.
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

// replaced reports whether f, an open pane file, is no longer the pane
// file: another process took the pane over (see takeOver) by renaming a
// fresh file over it. That leaves f with no link, or with one: the
// take-over name of a taker that died after renaming f into place, until
// the next take-over removes such leftovers (its taker may die or stop
// before). So the path is looked up too. It costs one fstat and one lstat;
// a file or path that cannot be looked at counts as not replaced.
func replaced(f *os.File) bool {
	var st, ps syscall.Stat_t
	if fstat(f, &st) != nil {
		return false
	}
	if st.Nlink == 0 {
		return true
	}
	if syscall.Lstat(f.Name(), &ps) != nil {
		return false
	}
	return ps.Dev != st.Dev || ps.Ino != st.Ino
}

// fstat is syscall.Fstat on f's descriptor, without os.File.Fd (which
// would put a non-blocking descriptor back into blocking mode).
func fstat(f *os.File, st *syscall.Stat_t) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstat(int(fd), st) }); err != nil {
		return err
	}
	return serr
}

// takeOver replaces the pane file at path, whose lock old's holder kept
// past the caller's bound (a process stopped in the moment it holds it),
// with a fresh file, and returns that file, locked, holding a copy of
// old's record (the caller reads old again once the new file is in place:
// see Claim.takeOver). The fresh file is created beside path under a
// random name with O_EXCL and O_NOFOLLOW, 0600, checked as every pane file
// is, and renamed over path.
//
// One process at a time takes one file over: the fresh file is first
// linked under a name made of old's device and inode (link(2) fails when
// the name exists), and the path is checked to still name old; the name
// is removed after the rename. Another process that decided to take old
// over at the same moment gets errTakenOver, as does one whose path
// already names another file.
//
// Then old is marked (the tombstone, one byte past the record), and only
// then copied and renamed over. The holder of old looks for the mark
// after it writes its number (takenOver: the read costs what the fstat it
// replaces did) and sends nothing when it finds it; so a number it sends
// was written before the mark, and is in the copy. A taker killed at any
// step leaves no number sent outside the pane file: before its rename,
// old is still the pane file; after it, the fresh file holds the copy.
// A mark whose taker died before its rename is cleared by the next
// process that finds it, once the take-over's names are stale (see
// clearDeadTakeOver); after the rename, the mark is what tells the other
// processes that have old open to open the path again.
func takeOver(path string, old *os.File) (*os.File, error) {
	var st syscall.Stat_t
	if err := fstat(old, &st); err != nil {
		return nil, err
	}
	if st.Nlink == 0 {
		return nil, errTakenOver
	}
	var r [8]byte
	rand.Read(r[:])
	tmp := fmt.Sprintf("%s.%x.new", path, r)
	nf, err := openCheckedAs(tmp, path, syscall.O_EXCL)
	if err != nil {
		return nil, &fileError{Path: tmp, Err: err}
	}
	drop := func() {
		nf.Close()
		syscall.Unlink(tmp)
	}
	if ok, err := filelock.TryLockFile(nf); !ok || err != nil {
		drop()
		return nil, &fileError{Path: tmp, Err: errors.Join(errors.New("cannot lock a file just created"), err)}
	}
	gate := takeName(path, &st)
	err = syscall.Link(tmp, gate)
	if errors.Is(err, syscall.EEXIST) && clearStaleTake(path, gate) {
		err = syscall.Link(tmp, gate)
	}
	if err != nil {
		drop()
		if errors.Is(err, syscall.EEXIST) {
			return nil, errTakenOver
		}
		return nil, &fileError{Path: gate, Err: err}
	}
	var cur syscall.Stat_t
	if err := syscall.Lstat(path, &cur); err != nil || cur.Dev != st.Dev || cur.Ino != st.Ino {
		unlinkIfSame(gate, nf)
		drop()
		return nil, errTakenOver
	}
	step("linked")
	if _, err := old.WriteAt([]byte{tombstone}, int64(recordLen)); err != nil {
		unlinkIfSame(gate, nf)
		drop()
		return nil, &fileError{Path: path, Err: err}
	}
	step("marked")
	// The copy, for the readers that look without the lock (an OnFree
	// watch) until the caller writes its own record, and for the pane
	// file itself should this process die before.
	var b [recordLen + 1]byte
	n, _ := readRecordBytes(old, b[:])
	keep := recordPart(b[:n])
	nf.WriteAt(keep, 0)
	step("copied")
	if err := syscall.Rename(tmp, path); err != nil {
		if unlinkIfSame(gate, nf) {
			// Still old's taker: the mark goes.
			n, _ := readRecordBytes(old, b[:])
			old.Truncate(int64(len(recordPart(b[:n]))))
		}
		drop()
		return nil, &fileError{Path: path, Err: err}
	}
	step("renamed")
	unlinkIfSame(gate, nf)
	removeLeftovers(path)
	return nf, nil
}

// takenOver reports whether the pane file f, whose lock the caller holds
// and into which it wrote its number, is marked taken over (see
// takeOver): a take-over is under way, or was done (or its taker died
// midway), and the caller sends nothing of its call. It costs one pread.
func takenOver(f *os.File) bool {
	var b [recordLen + 1]byte
	n, _ := readRecordBytes(f, b[:])
	return replacedRecord(b[:n])
}

// clearDeadTakeOver is for the pane file f at path, whose lock the caller
// holds, found marked taken over (see takeOver) while path still names
// it: a taker marks the file before its copy and its rename, so it is
// under way (for microseconds), or was stopped or died before its
// rename. When the take-over's names are gone or stale (staleName), it
// removes them (the stopped taker's late rename then finds nothing to
// rename), clears the mark (keeping the record's keep bytes), and reports
// true: f is the pane file, to be used. It reports false for a take-over
// under way, and for one whose rename came first after all (the mark
// stays).
func clearDeadTakeOver(path string, f *os.File, keep int) bool {
	var st syscall.Stat_t
	if fstat(f, &st) != nil || replaced(f) {
		return false
	}
	// The mark goes first, the names are looked at after: a taker that
	// links its name after that look marks the file after this clears it.
	if f.Truncate(int64(keep)) != nil {
		return false
	}
	gate := takeName(path, &st)
	if _, err := os.Lstat(gate); err == nil && !clearStaleTake(path, gate) {
		// A running taker's: its mark stays.
		f.WriteAt([]byte{tombstone}, int64(recordLen))
		return false
	}
	if replaced(f) {
		// Renamed before its fresh file was removed: the mark stays, for
		// the other processes that have f open.
		f.WriteAt([]byte{tombstone}, int64(recordLen))
		return false
	}
	return true
}

// takeOverStep, when set, is called by takeOver between its steps, with
// the step just done: for the tests, which kill a taking process there.
var takeOverStep func(step string)

func step(s string) {
	if takeOverStep != nil {
		takeOverStep(s)
	}
}

// readRecordBytes reads the start of f into b with one pread: os.File's
// ReadAt would make a second one to find the end of the file, since the
// record is shorter than b (which has room for one byte more, to tell a
// longer file). n is 0 with io.EOF for an empty file.
func readRecordBytes(f *os.File, b []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			n, rerr = syscall.Pread(int(fd), b, 0)
			if rerr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, rerr
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// takeName is the name that one take-over of the pane file at path, whose
// device and inode are st's, links its fresh file under (see takeOver).
func takeName(path string, st *syscall.Stat_t) string {
	return fmt.Sprintf("%s.take-%x-%x", path, st.Dev, st.Ino)
}

// staleTake is how old a take-over's names (the gate, a fresh file not
// renamed yet) must be before another process removes them: a process
// taking a file over holds them for microseconds, so older ones belong to
// a taker that was stopped (SIGSTOP) or died midway, and would otherwise
// keep every other process from taking the file over (ErrBusy) until it
// resumes, or for ever. Ten times takeOverAfter leaves a running taker on
// a loaded machine its time; one whose names are removed all the same
// fails its rename (its fresh file is gone) or finds the path replaced,
// and takes nothing over.
const staleTake = 10 * takeOverAfter

// staleName reports whether a take-over's name (the gate, a fresh file)
// whose information is fi is a dead or stopped taker's: last written more
// than staleTake ago, or more than staleTake ahead of the clock. A file's
// time comes from the clock the kernel read when it was written, so a
// time ahead of it means the clock was set back since (by hand, or a step
// of NTP); without the second bound, a taker that died before that would
// keep the pane for as long as the clock was set back. A running taker's
// names judged stale all the same cost it its take-over only (its rename
// finds nothing to rename).
func staleName(fi os.FileInfo) bool {
	age := time.Since(fi.ModTime())
	return age >= staleTake || age <= -staleTake
}

// clearStaleTake removes gate, the take-over name of the file at path,
// and the fresh file it names, when gate is stale (staleName: the fresh
// file is created, and written with its copy of the record, microseconds
// around its link), and reports whether it did: the caller links its own
// then.
func clearStaleTake(path, gate string) bool {
	fi, err := os.Lstat(gate)
	if err != nil {
		return true // gone meanwhile: try again
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !staleName(fi) {
		return false
	}
	dir, base := filepath.Split(path)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, base+".") || !strings.HasSuffix(n, ".new") {
			continue
		}
		var fs syscall.Stat_t
		if syscall.Lstat(filepath.Join(dir, n), &fs) == nil && fs.Dev == st.Dev && fs.Ino == st.Ino {
			syscall.Unlink(filepath.Join(dir, n)) // its late rename now fails
		}
	}
	err = syscall.Unlink(gate)
	return err == nil || errors.Is(err, syscall.ENOENT)
}

// unlinkIfSame removes the take-over name gate if it still names f, and
// reports whether it did: a taker that resumes after another removed its
// stale name must not remove the name the other linked since.
func unlinkIfSame(gate string, f *os.File) bool {
	var gs, fs syscall.Stat_t
	if syscall.Lstat(gate, &gs) != nil || fstat(f, &fs) != nil || gs.Dev != fs.Dev || gs.Ino != fs.Ino {
		return false
	}
	return syscall.Unlink(gate) == nil
}

// removeLeftovers removes, after a take-over of the file at path, what
// takers that died midway left beside it: fresh files never renamed,
// stale (staleName), and take-over names of files that path no longer
// names (whatever their age: a taker of such a file fails its look at the
// path), or stale. A taker that died after its rename
// left a name of the file it replaced, linking to the pane file, whose
// time every call renews.
//
// The directory is listed before the path is looked at: a take-over name
// listed that is not the current file's is that of a file the path no
// longer named at the look, after the listing; that file's one taker (the
// name's holder) renamed already, and no other can pass its look at the
// path any more. Listed after the look, a name could be that of a taker
// that passed its own look in between, whose exclusion would go.
func removeLeftovers(path string) {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	current := ""
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) == nil {
		current = filepath.Base(takeName(path, &st))
	}
	step("leftovers-path")
	for _, e := range entries {
		n := e.Name()
		rest, ok := strings.CutPrefix(n, base+".")
		take := ok && strings.HasPrefix(rest, "take-")
		if !ok || !take && !strings.HasSuffix(rest, ".new") {
			continue
		}
		p := filepath.Join(dir, n)
		if take && n != current {
			syscall.Unlink(p)
		} else if fi, err := os.Lstat(p); err == nil && staleName(fi) {
			syscall.Unlink(p)
		}
	}
}
