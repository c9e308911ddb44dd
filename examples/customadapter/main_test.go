package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	goleak.VerifyTestMain(m)
}

// The tests that call run do not run in parallel: run uses the one
// terminal of the process.

func TestRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), nil, &stdout, &stderr, []string{"TERM=xterm-256color"})
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("run = %d, stderr %q; want 0, empty", code, stderr.String())
	}
	want := `# attach: a new session is idle
"\x1b]2;chat: idle\a"
# the agent starts a turn
"\x1b]2;chat: working\a"
# a tool asks for approval
"\x1b]2;chat: blocked - Waiting for approval\a"
# the person approves
"\x1b]2;chat: working\a"
# the agent settles
"\x1b]2;chat: idle\a"
# detach: the title is given back
"\x1b]2;\a"
`
	if diff := cmp.Diff(stdout.String(), want); diff != "" {
		t.Errorf("output (-got +want):\n%s", diff)
	}
}

func TestRunRaw(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--raw"}, &stdout, &stderr, []string{"TERM=xterm-256color"})
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("run = %d, stderr %q; want 0, empty", code, stderr.String())
	}
	want := "# attach: a new session is idle\n\x1b]2;chat: idle\a# the agent starts a turn\n\x1b]2;chat: working\a" +
		"# a tool asks for approval\n\x1b]2;chat: blocked - Waiting for approval\a# the person approves\n\x1b]2;chat: working\a" +
		"# the agent settles\n\x1b]2;chat: idle\a# detach: the title is given back\n\x1b]2;\a"
	if diff := cmp.Diff(stdout.String(), want); diff != "" {
		t.Errorf("output (-got +want):\n%s", diff)
	}
}

func TestRunFlags(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
	}{
		{"help", []string{"-h"}, 0},
		{"unknown flag", []string{"--cooked"}, 2},
		{"bad pause", []string{"--pause", "soon"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(t.Context(), tc.args, &stdout, &stderr, nil); code != tc.wantCode || stdout.Len() != 0 {
				t.Errorf("run = %d, stdout %q; want %d, empty", code, stdout.String(), tc.wantCode)
			}
		})
	}
}
