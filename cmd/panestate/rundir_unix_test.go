//go:build linux || darwin

package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRuntimeDirMustBePrivate: the bridges' sockets live only in a
// directory of this user with mode 0700 that is not a link; anything else
// is refused, so that no hook sends to, or starts a bridge in, a place
// another user could reach.
func TestRuntimeDirMustBePrivate(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, base string) // makes base/panestate, or not
		wantErr error                           // nil: the directory is used
	}{
		{name: "made by the hook", prepare: func(*testing.T, string) {}},
		{name: "already there, 0700", prepare: func(t *testing.T, base string) { mkdir(t, filepath.Join(base, "panestate"), 0o700) }},
		{name: "readable by others", prepare: func(t *testing.T, base string) { mkdir(t, filepath.Join(base, "panestate"), 0o755) }, wantErr: errRuntimeDir},
		{name: "a link to a private directory", prepare: func(t *testing.T, base string) {
			other := filepath.Join(base, "other")
			mkdir(t, other, 0o700)
			if err := os.Symlink(other, filepath.Join(base, "panestate")); err != nil {
				t.Fatal(err)
			}
		}, wantErr: errRuntimeDir},
		{name: "a file", prepare: func(t *testing.T, base string) {
			if err := os.WriteFile(filepath.Join(base, "panestate"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, wantErr: errRuntimeDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			tt.prepare(t, base)
			dir, err := runtimeDir([]string{"XDG_RUNTIME_DIR=" + base})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("runtimeDir: %q, %v; want error %v", dir, err, tt.wantErr)
			}
			if err == nil && dir != filepath.Join(base, "panestate") {
				t.Errorf("runtimeDir = %q, want %q", dir, filepath.Join(base, "panestate"))
			}
		})
	}
}

// mkdir makes dir with exactly mode perm, whatever the umask.
func mkdir(t *testing.T, dir string, perm os.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
}
