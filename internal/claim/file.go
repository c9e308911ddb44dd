package claim

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/panestate/panestate/adapter"
)

// fileError is why a pane file cannot be used: its directory or the file
// is not what this package creates (a symbolic link, another owner, a mode
// open to others, not a regular file), or it cannot be created or read.
// The claim then works within the process only; callers report it as a
// persist_failed diagnostic.
type fileError struct {
	Path string // the directory or file
	Err  error
}

func (e *fileError) Error() string { return "claim: pane file " + e.Path + ": " + e.Err.Error() }

func (e *fileError) Unwrap() error { return e.Err }

// StateDir returns the directory of kind's pane files for the captured
// environment env: $XDG_STATE_HOME/panestate/<kind> when XDG_STATE_HOME is
// absolute, else $HOME/.local/state/panestate/<kind>; on Windows
// %LOCALAPPDATA%\panestate\<kind>. It returns "" when none of these is set:
// claims then work within the process only.
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

// FileName returns the base name of k's pane file: a hash, so that pane
// ids and socket paths (which hold separators and arbitrary text) never
// become path components.
func FileName(k Key) string {
	sum := sha256.Sum256([]byte(k.Kind + "\x00" + k.Server + "\x00" + k.Pane))
	return hex.EncodeToString(sum[:16]) + ".claim"
}

// openPaneFile opens (creating) k's pane file in dir, which is created
// 0700 when missing. Both are checked as the platform allows (see
// openNoFollow and checkDir).
func openPaneFile(dir string, k Key) (*os.File, error) {
	if dir == "" {
		return nil, &fileError{Path: "(none)", Err: errNoDir}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, &fileError{Path: dir, Err: err}
	}
	if err := checkDir(dir); err != nil {
		return nil, &fileError{Path: dir, Err: err}
	}
	path := filepath.Join(dir, FileName(k))
	f, err := openNoFollow(path)
	if err != nil {
		return nil, &fileError{Path: path, Err: err}
	}
	return f, nil
}

// callFileName returns the base name of k's call lock's file: its pane
// file's, ending in .call.
func callFileName(k Key) string { return strings.TrimSuffix(FileName(k), ".claim") + ".call" }

// openCallFile opens (creating) the file of k's call lock, beside its pane
// file in dir (which openPaneFile checked), with the same checks. It holds
// nothing: only its lock is used.
func openCallFile(dir string, k Key) (*os.File, error) {
	path := filepath.Join(dir, callFileName(k))
	f, err := openNoFollow(path)
	if err != nil {
		return nil, &fileError{Path: path, Err: err}
	}
	return f, nil
}

var errNoDir = fmt.Errorf("no state directory (set HOME, XDG_STATE_HOME or LOCALAPPDATA)")

// errTakenOver is takeOver's error when the pane file it would replace is
// being replaced, or was replaced, by another process: the caller opens
// the path again and waits for the lock of the file found there.
var errTakenOver = errors.New("claim: another process is taking the pane file over")

// errNoTakeOver is takeOver's error where a pane file is not taken over
// (outside Unix: see file_other.go).
var errNoTakeOver = errors.New("claim: a pane file is not taken over on this system")
