package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildMu  sync.Mutex
	buildDir string
	built    = map[bool]string{}
)

// buildPanestate builds the command once per test binary, with go build,
// as CGO_ENABLED=0 go install builds it: a static binary, which starts
// faster (docs/agents.md).
func buildPanestate(tb testing.TB) string {
	tb.Helper()
	return buildWith(tb, false)
}

// buildWith builds the command with or without cgo, once per test binary.
func buildWith(tb testing.TB, cgo bool) string {
	tb.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := built[cgo]; ok {
		return bin
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		tb.Fatal(err)
	}
	if buildDir == "" {
		if buildDir, err = os.MkdirTemp("", "panestate-bin"); err != nil {
			tb.Fatal(err)
		}
	}
	bin := filepath.Join(buildDir, "panestate-cgo"+fmt.Sprint(map[bool]int{false: 0, true: 1}[cgo]))
	cmd := exec.Command(gobin, "build", "-o", bin, "github.com/panestate/panestate/cmd/panestate")
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+map[bool]string{false: "0", true: "1"}[cgo])
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	built[cgo] = bin
	return bin
}

// removeBuild removes what buildWith built.
func removeBuild() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}
