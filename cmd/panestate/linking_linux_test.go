package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needCC fails the test under CI=true when there is no C compiler (the cgo
// build needs one; .ci/run installs gcc), and skips it otherwise.
func needCC(t *testing.T) {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no C compiler (CI must have one: .ci/run installs gcc): %v", err)
		}
		t.Skip("no C compiler: the cgo build cannot be made")
	}
}

// hasInterp reports whether the ELF file at path names a dynamic loader
// (a PT_INTERP program header): whether it is dynamically linked.
func hasInterp(t *testing.T, path string) bool {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}

// TestCommandsSayWhenTheBinaryIsDynamic: install, --print-config and the
// doctor name the static install command when, and only when, the binary
// they run from is dynamically linked, as the cgo build is.
func TestCommandsSayWhenTheBinaryIsDynamic(t *testing.T) {
	needCC(t)
	for _, cgo := range []bool{false, true} {
		bin := buildWith(t, cgo)
		dynamic := hasInterp(t, bin)
		if dynamic != cgo {
			t.Fatalf("cgo %v: the binary is dynamically linked: %v; the test assumes a cgo build is and a build without is not", cgo, dynamic)
		}
		for _, args := range [][]string{{"hook", "--print-config", "gemini"}, {"install", "gemini"}, {"doctor"}} {
			t.Run(filepath.Base(bin)+" "+strings.Join(args, " "), func(t *testing.T) {
				cmd := exec.CommandContext(t.Context(), bin, args...)
				cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
				out, _ := cmd.CombinedOutput() // the doctor exits 1 outside every workspace
				if got := strings.Contains(string(out), staticInstall); got != dynamic {
					t.Errorf("names the static install: %v, want %v; output:\n%s", got, dynamic, out)
				}
			})
		}
	}
}
