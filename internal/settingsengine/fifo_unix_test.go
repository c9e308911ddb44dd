//go:build unix

package settingsengine

import (
	"github.com/panestate/panestate/settings"

	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	write(t, path, "")
	if err := syscall.Unlink(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
}

// within runs fn and fails the test if it has not returned after five
// seconds (a hang on a FIFO never returns).
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s blocked on a FIFO", what)
	}
}

func TestLoadFIFO(t *testing.T) {
	tests := []struct {
		name string
		fifo func(f *fixture) string
		// check inspects the result; the FIFO's status is files[i].
		i int
	}{
		{name: "global file", fifo: func(f *fixture) string { return f.global }, i: 0},
		{name: "project file", fifo: func(f *fixture) string { return f.project }, i: 1},
		{name: "trust store", fifo: func(f *fixture) string {
			f.opts.Trust = nil
			f.opts.TrustFile = settings.DefaultTrustFile(f.home, "app")
			return f.opts.TrustFile
		}, i: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			mkfifo(t, tc.fifo(f))
			var s Settings
			var err error
			within(t, "Load", func() { s, err = Load(f.opts) })
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, errNotRegular) || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("err = %v, want a *FileError saying not a regular file", err)
			}
			if fs := s.Files()[tc.i]; fs.Condition != ConditionError || !strings.Contains(fs.Err, "not a regular file") {
				t.Errorf("status %+v", fs)
			}
			if tc.i == 2 {
				if p := s.Files()[1]; trusted(p) || !strings.Contains(p.TrustReason, "not a regular file") {
					t.Errorf("project status %+v", p)
				}
			}
		})
	}
}

func TestWatchFIFOThenClose(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	write(t, f.project, doc(false, "v1"))
	w, err := Watch(f.opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	mkfifo(t, f.project)
	waitFor(t, w, "the FIFO refused", func(s Settings) bool {
		fs := s.Files()[1]
		return fs.Condition == ConditionError && fs.Stale && strings.Contains(fs.Err, "not a regular file")
	})
	if !isHerdr(false, "v1", LayerProject)(w.Current()) {
		t.Errorf("last good settings not kept")
	}
	within(t, "Close", func() { err = w.Close() })
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenRegularFIFO covers a FIFO swapped in between the type check and
// the open: the open must not wait for a writer.
func TestOpenRegularFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	mkfifo(t, p)
	var err error
	within(t, "openRegular", func() {
		var fh interface{ Close() error }
		fh, err = openRegular(p)
		if err == nil {
			_ = fh.Close()
		}
	})
	if !errors.Is(err, errNotRegular) {
		t.Errorf("err = %v, want errNotRegular", err)
	}
}
