//go:build unix

package claim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPaneFileRefused: a symbolic link planted at the pane file's path, a
// directory open to others, and a directory that is a link are refused
// with a fileError; the link's target is never written, and the claim
// still works within the process.
func TestPaneFileRefused(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string, k Key) (victim string)
		want  string
	}{
		{name: "symlink at the file", want: "symbolic link", setup: func(t *testing.T, dir string, k Key) string {
			mkdir(t, dir, 0o700)
			return plantLink(t, filepath.Join(dir, FileName(k)))
		}},
		{name: "directory mode 0755", want: "mode 0755", setup: func(t *testing.T, dir string, k Key) string {
			mkdir(t, dir, 0o755)
			return ""
		}},
		{name: "directory is a symlink", want: "symbolic link", setup: func(t *testing.T, dir string, k Key) string {
			real := filepath.Join(t.TempDir(), "real")
			mkdir(t, real, 0o700)
			if err := os.Symlink(real, dir); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
		{name: "hard link at the file", want: "hard link", setup: func(t *testing.T, dir string, k Key) string {
			mkdir(t, dir, 0o700)
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(victim, filepath.Join(dir, FileName(k))); err != nil {
				t.Fatal(err)
			}
			return victim
		}},
		{name: "FIFO at the file", want: "not a regular file", setup: func(t *testing.T, dir string, k Key) string {
			mkdir(t, dir, 0o700)
			if err := syscall.Mkfifo(filepath.Join(dir, FileName(k)), 0o600); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
		{name: "file mode 0644", want: "mode 0644", setup: func(t *testing.T, dir string, k Key) string {
			mkdir(t, dir, 0o700)
			path := filepath.Join(dir, FileName(k))
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), filepath.Join(t.TempDir(), "state")
			victim := tt.setup(t, dir, k)
			c := New(k, Options{Dir: dir})
			defer c.Close()
			call := begin(t, c, Report)
			call.End(true)
			var fe *fileError
			if !errors.As(call.FileErr, &fe) || !strings.Contains(fe.Error(), tt.want) {
				t.Errorf("FileErr = %v, want a fileError saying %q", call.FileErr, tt.want)
			}
			if !call.Send {
				t.Error("the call was refused: ownership within the process must go on")
			}
			if victim != "" {
				if b, err := os.ReadFile(victim); err != nil || string(b) != "precious\n" {
					t.Errorf("the link's target now holds %q, %v", b, err)
				}
			}
		})
	}
}

// plantLink plants at path a symbolic link to a file holding "precious\n",
// and returns the file.
func plantLink(t *testing.T, path string) (victim string) {
	t.Helper()
	victim = filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	return victim
}

func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

// TestCallFileRefused: a symbolic link planted at the call lock's path is
// not followed (its target is neither created, written nor locked), and
// the calls go on without the call lock, each told why (FileErr, which the
// adapter reports as persist_failed), clearing their marks in the pane file
// after each call.
func TestCallFileRefused(t *testing.T) {
	k, dir := newKey(t), filepath.Join(t.TempDir(), "state")
	mkdir(t, dir, 0o700)
	victim := plantLink(t, filepath.Join(dir, callFileName(k)))
	c := New(k, Options{Dir: dir})
	defer c.Close()
	for i := range 2 { // told at every call, not only the one that opened the file
		call := begin(t, c, Report)
		call.End(call.Send)
		if !call.Send || call.held {
			t.Errorf("call %d: Send %v held %v, want sent without the call lock", i, call.Send, call.held)
		}
		if call.FileErr == nil || !strings.Contains(call.FileErr.Error(), callFileName(k)) {
			t.Errorf("call %d: FileErr %v, want the refused call lock's file named", i, call.FileErr)
		}
	}
	if got := readRecord(t, filepath.Join(dir, FileName(k))); !got.busy.IsZero() || got.locked {
		t.Errorf("record %v after the call, want its mark cleared", got)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious\n" {
		t.Errorf("the link's target now holds %q, %v", b, err)
	}
}

// otherOwner is a file's information as another user's file shows it.
type otherOwner struct{ os.FileInfo }

func (o otherOwner) Sys() any {
	st := *o.FileInfo.Sys().(*syscall.Stat_t)
	st.Uid = uint32(os.Getuid() + 1)
	return &st
}

// TestAnotherUsersFileRefused: a pane file or directory owned by another
// user is refused even with a closed mode (a test cannot chown without
// root, so the owner is changed in the file's information).
func TestAnotherUsersFileRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkOwner(fi, "file", 0o600); err != nil {
		t.Fatalf("own file refused: %v", err)
	}
	if err := checkOwner(otherOwner{fi}, "file", 0o600); err == nil || !strings.Contains(err.Error(), "owned by uid") {
		t.Errorf("another user's file: %v, want refused for its owner", err)
	}
}

// TestFreshPaneFileOpenedMidTakeOver: between a take-over's rename and the
// removal of its name, the fresh pane file has two links; a process that
// opens the path then (it found its own file replaced) is not refused as
// for a planted hard link.
func TestFreshPaneFileOpenedMidTakeOver(t *testing.T) {
	k, dir := newKey(t), filepath.Join(t.TempDir(), "state")
	mkdir(t, dir, 0o700)
	path := filepath.Join(dir, FileName(k))
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, path+".take-1-2"); err != nil {
		t.Fatal(err)
	}
	f, err := openNoFollow(path)
	if err != nil {
		t.Fatalf("open mid take-over: %v", err)
	}
	f.Close()
}

// TestOpenedAsATakerRemovesItsName: a process that opens the pane file in
// the moment a taker, just after its rename, removes its take-over name
// sees two links in its fstat and no take-over name in the directory. The
// file is the pane file all the same, not a planted hard link: refusing
// it left the call without the file, sending a number from its clock
// below the stopped process's mark (seen under load, in
// TestTwoProcessesTakeOverAtOnce). A hard link that stays is refused.
func TestOpenedAsATakerRemovesItsName(t *testing.T) {
	for _, tt := range []struct {
		name   string
		remove bool // the taker removes its name between the fstat and the directory read
		want   string
	}{
		{name: "name removed meanwhile", remove: true},
		{name: "link that stays", want: "hard link"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			path := plant(t, dir, k, 1000, false, time.Time{})
			gate := path + ".take-1-2"
			if err := os.Link(path, gate); err != nil {
				t.Fatal(err)
			}
			looked := false
			takeOverStep = func(s string) {
				if s == "open-stat" {
					looked = true
					if tt.remove {
						os.Remove(gate)
					}
				}
			}
			defer func() { takeOverStep = nil }()
			if !tt.remove {
				// Another name than a take-over's, as a planted link has.
				if err := os.Rename(gate, filepath.Join(dir, "elsewhere")); err != nil {
					t.Fatal(err)
				}
			}
			f, err := openNoFollow(path)
			if f != nil {
				f.Close()
			}
			if !looked {
				t.Fatal("the open did not see two links")
			}
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("open: %v, want the pane file", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("open: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
