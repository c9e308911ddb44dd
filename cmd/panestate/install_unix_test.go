//go:build linux || darwin

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInstallRefusesHostileFiles: at the settings path, a FIFO, a link to
// /dev/zero, a file over maxSettings and a file holding null are each
// refused with a message that says why, at once: install neither waits,
// nor reads without end, nor panics, and leaves no backup and the file as
// it was.
func TestInstallRefusesHostileFiles(t *testing.T) {
	tests := []struct {
		name    string
		make    func(t *testing.T, path string)
		wantErr string
	}{
		{name: "a FIFO", wantErr: "not a regular file", make: func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a link to /dev/zero", wantErr: "not a regular file", make: func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a 200 MB file", wantErr: "larger than", make: func(t *testing.T, path string) {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(`{"model":"opus","x":"`); err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(200 << 20); err != nil { // sparse: costs no disk
				t.Fatal(err)
			}
		}},
		{name: "null", wantErr: "not a JSON object", make: func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("null\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, ".claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			tt.make(t, path)
			before, _ := os.Lstat(path)
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				var stdout, stderr bytes.Buffer
				code := run([]string{"install", "claude-code"}, nil, &stdout, &stderr, []string{"HOME=" + home})
				done <- result{code, stdout.String(), stderr.String()}
			}()
			var r result
			start := time.Now()
			select {
			case r = <-done:
				t.Logf("install refused it in %v", time.Since(start).Round(time.Microsecond))
			case <-time.After(10 * time.Second): // a bound on a hang, not a speed
				t.Fatal("install still runs after 10 s")
			}
			if r.code != 1 || !strings.Contains(r.stderr, tt.wantErr) || strings.Contains(r.stderr, "goroutine") {
				t.Errorf("exit %d, stderr %q, stdout %q; want 1 and %q", r.code, r.stderr, r.stdout, tt.wantErr)
			}
			if files, _ := filepath.Glob(filepath.Join(home, ".claude", "*.bak")); len(files) > 0 {
				t.Errorf("backups made: %q", files)
			}
			if after, err := os.Lstat(path); err != nil || !os.SameFile(before, after) || after.Size() != before.Size() {
				t.Errorf("the settings file changed: %v", err)
			}
		})
	}
}
