//go:build unix

package settingsengine

import (
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readAsUser reads like readFile, but refuses a file with no read bit set
// as the kernel refuses it to an unprivileged user. CI runs the tests as
// root, which the kernel lets read a mode-000 file; the permission check is
// all this replaces: the chmod, its fsnotify event and the stat are real.
func readAsUser(path string) readResult {
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o444 == 0 {
		return failed(path, &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES})
	}
	return readFile(path)
}

// permHooks returns the hooks that make mode 000 unreadable for this
// process: none when it is not root, since the kernel then refuses it.
func permHooks(t *testing.T) hooks {
	if os.Geteuid() == 0 {
		t.Log("running as root: the read permission check is emulated (readAsUser)")
		return hooks{read: readAsUser}
	}
	return hooks{}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestWatchUnreadableFileIsReadAgainAfterChmod(t *testing.T) {
	tests := []struct {
		name string
		// start is the file's mode when the watcher starts.
		start os.FileMode
		// retry is Options.RetryAfter. An hour makes sure that only the
		// chmod event, not a retry, can bring the file back.
		retry time.Duration
		stale bool
	}{
		{name: "unreadable at start", start: 0, retry: time.Hour, stale: false},
		{name: "made unreadable while watched", start: 0o644, retry: 200 * time.Millisecond, stale: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.opts.RetryAfter = tc.retry
			write(t, f.project, doc(false, "v1"))
			chmod(t, f.project, tc.start)
			w, _ := startWatchHooks(t, f.opts, permHooks(t))
			chmod(t, f.project, 0)
			waitFor(t, w, "the file in error", func(s Settings) bool {
				fs := s.Files()[1]
				return fs.Condition == ConditionError && fs.Stale == tc.stale && strings.Contains(fs.Err, "permission denied")
			})
			chmod(t, f.project, 0o644)
			waitFor(t, w, "the file read again", func(s Settings) bool {
				fs := s.Files()[1]
				return fs.Condition == ConditionLoaded && fs.Err == "" && !fs.Stale && isHerdr(false, "v1", LayerProject)(s)
			})
		})
	}
}

func TestWatchChmodIsAChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.opts.RetryAfter = time.Hour
	write(t, f.project, doc(false, "v1"))
	reads := make(chan struct{}, 1)
	h := hooks{read: func(path string) readResult {
		if path == f.project {
			select {
			case reads <- struct{}{}:
			default:
			}
		}
		return readFile(path)
	}}
	startWatchHooks(t, f.opts, h)
	<-reads // the first read, in Watch
	chmod(t, f.project, 0o600)
	select {
	case <-reads:
	case <-time.After(5 * time.Second):
		t.Fatal("a chmod of the settings file did not make the watcher read it")
	}
}
