package cmdrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/panestate/panestate/adapter"
)

// ErrNotFound is wrapped by the error of [LookPath] when no usable program
// of that name is on the PATH.
var ErrNotFound = errors.New("executable not found in PATH")

// LookPath returns the absolute path of the program file, searched in the
// PATH of env (a captured environment), not the process's. A file that
// contains a path separator is not searched: it must be absolute, and is
// checked as it is.
//
// Empty and relative PATH entries are skipped: they stand for the working
// directory, which may be an untrusted checkout with a program of that name
// planted in it. The first candidate that [CheckExecutable] accepts wins;
// directories, and files this user may not run, are passed over. On
// Windows, the names in PATHEXT (default .COM;.EXE;.BAT;.CMD) are tried when
// file has no extension, and PATH and PATHEXT are matched without regard to
// case.
//
// The error wraps [ErrNotFound], or says why an explicit path is unusable.
// LookPath does no I/O besides stat and access checks.
func LookPath(env adapter.Env, file string) (string, error) {
	if file == "" {
		return "", fmt.Errorf("cmdrun: %w: empty program name", ErrNotFound)
	}
	if strings.ContainsAny(file, pathSeparators) {
		if !filepath.IsAbs(file) {
			return "", fmt.Errorf("cmdrun: %q: %w", file, errRelative)
		}
		if err := CheckExecutable(file); err != nil {
			return "", fmt.Errorf("cmdrun: %q: %w", file, err)
		}
		return filepath.Clean(file), nil
	}
	names := []string{file}
	if runtime.GOOS == "windows" && filepath.Ext(file) == "" {
		exts := lookupFold(env, "PATHEXT")
		if exts == "" {
			exts = ".COM;.EXE;.BAT;.CMD"
		}
		names = names[:0]
		for ext := range strings.SplitSeq(exts, ";") {
			if ext != "" {
				names = append(names, file+strings.ToLower(ext))
			}
		}
	}
	path := env.Get("PATH")
	if runtime.GOOS == "windows" {
		path = lookupFold(env, "PATH")
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		for _, name := range names {
			candidate := filepath.Join(dir, name)
			if CheckExecutable(candidate) == nil {
				return candidate, nil
			}
		}
	}
	return "", fmt.Errorf("cmdrun: %q: %w", adapter.Bound(file, 80), ErrNotFound)
}

// CheckExecutable returns nil when path names a regular file (after
// symbolic links) that this user may run, or the reason it is not: it does
// not exist, it is a directory or device, or (on Unix, asked of the kernel
// with access(2)) this user lacks execute permission.
func CheckExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	return executable(path)
}

// lookupFold returns the last value of key in env, matching names without
// regard to case (Windows environment names).
func lookupFold(env adapter.Env, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		k, v, ok := strings.Cut(env[i], "=")
		if ok && strings.EqualFold(k, key) {
			return v
		}
	}
	return ""
}
