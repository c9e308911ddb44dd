package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/panestate/panestate/internal/testenv"
)

// runMainEnv makes the test binary run the doctor's main.
const runMainEnv = "PANESTATE_EXAMPLE_DOCTOR_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
	testenv.ClearHerdr()
	os.Exit(m.Run())
}

// TestMainRunsTheDoctor runs the command as a process outside every
// workspace: it says so in its JSON and exits 1 (package doctor has the
// doctor's own tests).
func TestMainRunsTheDoctor(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(exe, "--json", "--project", t.TempDir())
	cmd.Env = []string{runMainEnv + "=1", "HOME=" + home, "USERPROFILE=" + home}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1 (nothing would report)", err)
	}
	var rep struct {
		App         string   `json:"app"`
		WouldReport []string `json:"would_report"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	if rep.App != "chat" || len(rep.WouldReport) != 0 {
		t.Errorf("report %+v, want app chat reporting nowhere", rep)
	}
}
