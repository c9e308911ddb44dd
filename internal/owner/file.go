package owner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/panestate/panestate/adapter"
)

// FileError is why a pane file cannot be used: its directory or the file
// is not what this package creates (a link, another owner, a mode open to
// others, not a regular file), or it cannot be created, read or written.
// The claim then holds within the process only; adapters report it as a
// persist_failed diagnostic.
type FileError struct {
	Path string // the directory or the file
	Err  error
}

func (e *FileError) Error() string { return "owner: pane file " + e.Path + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

// StateDir returns the directory of kind's pane files for the captured
// environment env: $XDG_STATE_HOME/panestate/<kind> when XDG_STATE_HOME is
// absolute, else $HOME/.local/state/panestate/<kind>; on Windows
// %LOCALAPPDATA%\panestate\<kind>. It returns "" when none is set: claims
// then hold within the process only.
func StateDir(env adapter.Env, kind string) string {
	if runtime.GOOS == "windows" {
		if d := env.Get("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "panestate", kind)
		}
		return ""
	}
	if d := env.Get("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "panestate", kind)
	}
	if h := env.Get("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "panestate", kind)
	}
	return ""
}

// FileName returns the base name of k's pane file: a hash, so that pane ids
// and socket paths never become path components.
func FileName(k Key) string {
	sum := sha256.Sum256([]byte(k.Kind + "\x00" + k.Server + "\x00" + k.Pane))
	return hex.EncodeToString(sum[:16]) + ".owner"
}

var errNoDir = errors.New("no state directory (set HOME, XDG_STATE_HOME or LOCALAPPDATA)")

// openPaneFile opens (creating) k's pane file in dir, which is created 0700
// when missing; both are checked as the platform allows.
func openPaneFile(dir string, k Key) (*os.File, error) {
	if dir == "" {
		return nil, &FileError{Path: "(none)", Err: errNoDir}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, &FileError{Path: dir, Err: err}
	}
	if err := checkDir(dir); err != nil {
		return nil, &FileError{Path: dir, Err: err}
	}
	path := filepath.Join(dir, FileName(k))
	f, err := openNoFollow(path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return f, nil
}

// checkDir refuses a directory that is a symbolic link (on Windows, a
// reparse point) or fails checkOwner.
func checkDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0 {
		return errors.New("is a symbolic link; refusing it")
	}
	if !fi.IsDir() {
		return errors.New("is not a directory")
	}
	return checkOwner(fi, "directory", 0o700)
}

// record is the pane file's line: the newest sequence number any process
// took for the pane, and the claim that owns it (zero: nobody).
type record struct {
	seq   uint64
	owner token
}

// recordLen is the line's fixed size:
//
//	o1 <seq:20> <process:16 hex> <pid:10> <gen:20>\n
const recordLen = 2 + 1 + 20 + 1 + 16 + 1 + 10 + 1 + 20 + 1

// fields are the widths and bases of the record's fields after "o1", as
// marshal writes them.
var fields = [4][2]int{{20, 10}, {16, 16}, {10, 10}, {20, 10}}

func (r record) marshal() []byte {
	return fmt.Appendf(nil, "o1 %020d %016x %010d %020d\n", r.seq, r.owner.Process, r.owner.PID, r.owner.Gen)
}

// parseRecord parses b; an empty b is a free pane numbered 0.
func parseRecord(b []byte) (record, bool) {
	if len(b) == 0 {
		return record{}, true
	}
	if len(b) != recordLen || string(b[:2]) != "o1" || b[recordLen-1] != '\n' {
		return record{}, false
	}
	var v [4]uint64
	i := 2
	for n, f := range fields {
		x, err := strconv.ParseUint(string(b[i+1:i+1+f[0]]), f[1], 64)
		if b[i] != ' ' || err != nil {
			return record{}, false
		}
		v[n], i = x, i+1+f[0]
	}
	r := record{seq: v[0], owner: token{Process: v[1], PID: int(v[2]), Gen: v[3]}}
	if v[2] > 1<<31-1 || (r.owner.Process == 0) != r.owner.IsZero() {
		return record{}, false
	}
	return r, true
}

// readRecord reads f's record without its lock: whole, since every write
// is one write of one line at offset 0. ok is false for a record that does
// not parse (corrupt, or an earlier version's), or a read that failed.
func readRecord(f *os.File) (r record, ok bool) {
	var b [recordLen + 1]byte
	n, err := f.ReadAt(b[:], 0)
	if n == 0 && err != nil && !errors.Is(err, io.EOF) {
		return record{}, false
	}
	return parseRecord(b[:n])
}

// writeRecord writes r into f at offset 0, in one write.
func writeRecord(f *os.File, r record) error {
	if _, err := f.WriteAt(r.marshal(), 0); err != nil {
		return &FileError{Path: f.Name(), Err: err}
	}
	return nil
}
