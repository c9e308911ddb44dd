package cmdrun_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/cmdrun"
)

func TestLookPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("execute bits and PATH form differ on Windows")
	}
	root := t.TempDir()
	mk := func(dir, name string, mode os.FileMode) string {
		t.Helper()
		d := filepath.Join(root, dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("noexec", "tool", 0o644)
	if err := os.MkdirAll(filepath.Join(root, "dir", "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	good := mk("good", "tool", 0o755)
	later := mk("later", "tool", 0o755)
	planted := mk("cwd", "tool", 0o755)
	t.Chdir(filepath.Join(root, "cwd"))
	dirs := func(ds ...string) string {
		for i, d := range ds {
			if filepath.IsAbs(d) || d == "" || d == "." {
				continue
			}
			ds[i] = filepath.Join(root, d)
		}
		return strings.Join(ds, string(filepath.ListSeparator))
	}
	tests := []struct {
		name    string
		path    string
		file    string
		want    string
		wantErr error
	}{
		{"first usable entry wins", dirs("noexec", "dir", "good", "later"), "tool", good, nil},
		{"relative and empty entries are skipped", dirs(".", "", "later"), "tool", later, nil},
		{"only the working directory has it", dirs("."), "tool", "", cmdrun.ErrNotFound},
		{"not found", dirs("noexec"), "tool", "", cmdrun.ErrNotFound},
		{"no PATH", "", "tool", "", cmdrun.ErrNotFound},
		{"absolute file is checked, not searched", "", good, good, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := adapter.Env{"PATH=" + tt.path}
			got, err := cmdrun.LookPath(env, tt.file)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("LookPath = %q, %v; want error %v", got, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("LookPath = %q; want %q", got, tt.want)
			}
			if got == planted {
				t.Errorf("LookPath found the program planted in the working directory")
			}
		})
	}
	for _, file := range []string{"./tool", "cwd/tool", filepath.Join(root, "noexec", "tool")} {
		if got, err := cmdrun.LookPath(adapter.Env{"PATH=" + filepath.Join(root, "good")}, file); err == nil {
			t.Errorf("LookPath(%q) = %q; want an error", file, got)
		}
	}
}

func TestCheckExecutable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no execute bit")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "exe")
	plain := filepath.Join(dir, "plain")
	os.WriteFile(exe, nil, 0o755)
	os.WriteFile(plain, nil, 0o644)
	tests := []struct {
		name string
		path string
		ok   bool
	}{
		{"executable file", exe, true},
		{"no execute bit", plain, false},
		{"directory", dir, false},
		{"missing", filepath.Join(dir, "missing"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cmdrun.CheckExecutable(tt.path)
			if (err == nil) != tt.ok {
				t.Errorf("CheckExecutable = %v; want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestParseTimeout(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    time.Duration
		clamped bool
		err     bool
	}{
		{"absent", "", cmdrun.DefaultTimeout, false, false},
		{"null", "null", cmdrun.DefaultTimeout, false, false},
		{"duration string", `"2s"`, 2 * time.Second, false, false},
		{"milliseconds", "1500", 1500 * time.Millisecond, false, false},
		{"fractional milliseconds", "250.5", 250500 * time.Microsecond, false, false},
		{"below the minimum", `"1ms"`, cmdrun.MinTimeout, true, false},
		{"negative", "-5", cmdrun.MinTimeout, true, false},
		{"above the maximum", "1e300", cmdrun.MaxTimeout, true, false},
		{"not a duration", `"soon"`, 0, false, true},
		{"wrong type", `true`, 0, false, true},
		{"object", `{}`, 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, clamped, err := cmdrun.ParseTimeout([]byte(tt.raw))
			if (err != nil) != tt.err {
				t.Fatalf("ParseTimeout(%s) error = %v; want error %v", tt.raw, err, tt.err)
			}
			if diff := cmp.Diff(d, tt.want); diff != "" {
				t.Errorf("duration (-got +want):\n%s", diff)
			}
			if (clamped != "") != tt.clamped {
				t.Errorf("clamped = %q; want clamped %v", clamped, tt.clamped)
			}
		})
	}
}
