//go:build unix

package herdr

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Environment of the helper process of TestExecutableAccess.
const accessCheckEnv = "PANESTATE_HERDR_TEST_ACCESS"

// accessChildMain runs in the re-executed test binary, as another user:
// it prints why the file at path is not executable, or "ok".
func accessChildMain(path string) int {
	if err := checkExecutable(path); err != nil {
		os.Stdout.WriteString(err.Error() + "\n")
	} else {
		os.Stdout.WriteString("ok\n")
	}
	return 0
}

// TestExecutableAccess: the executable check asks the kernel for this user,
// so an execute bit that only another user or group has does not count.
func TestExecutableAccess(t *testing.T) {
	if os.Geteuid() == 0 {
		testExecutableAccessAsNobody(t)
		return
	}
	dir := t.TempDir()
	tests := []struct {
		name string
		mode os.FileMode
		want string // "" means executable
	}{
		{name: "owner may run", mode: 0o700},
		{name: "only group and others may run", mode: 0o611, want: "not executable by this user"},
		{name: "nobody may run", mode: 0o644, want: "not executable by this user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.WriteFile(path, []byte("x"), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil { // past the umask
				t.Fatal(err)
			}
			err := checkExecutable(path)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("checkExecutable = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("checkExecutable = %v, want %q", err, tt.want)
			}
		})
	}
}

// testExecutableAccessAsNobody checks, from a copy of the test binary run as
// the unprivileged user 65534, that a 0700 file owned by root is not
// executable for that user: the case root itself cannot observe, since root
// may run any file with an execute bit.
func testExecutableAccessAsNobody(t *testing.T) {
	const nobody = 65534
	dir, err := os.MkdirTemp("", "herdr-access-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The test binary's own directory is private; copy it where nobody may
	// run it.
	self := filepath.Join(dir, "herdr.test.copy")
	if err := copyFile(os.Args[0], self, 0o755); err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(dir, "herdr-private")
	if err := os.WriteFile(private, []byte("x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := checkExecutable(private); err != nil {
		t.Fatalf("as root the 0700 file is %v, want executable", err)
	}
	cmd := exec.CommandContext(t.Context(), self, "-test.run=^$")
	cmd.Env = append(os.Environ(), accessCheckEnv+"="+private)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("cannot run a process as user %d here: %v", nobody, err)
	}
	if got := strings.TrimSpace(string(out)); got != "not executable by this user" {
		t.Errorf("as user %d the root-owned 0700 file is %q, want not executable by this user", nobody, got)
	}
}

func copyFile(from, to string, mode os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
