package cmdrun_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/cmdrun"
	"github.com/panestate/panestate/internal/proc"
)

func TestRunPassesArgvVerbatim(t *testing.T) {
	// Every argument a shell would re-parse reaches the program as it is.
	args := []string{"a b", ";", "$(touch pwned)", "'q'", `"d"`, "", "-t", "%1", "*", "\\"}
	r := helper(t)
	r.Dir = t.TempDir()
	out, err := r.Run(t.Context(), append([]string{helperArg, "args"}, args...)...)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var got []string
	if err := json.Unmarshal(out.Stdout, &got); err != nil {
		t.Fatalf("helper output %q: %v", out.Stdout, err)
	}
	if diff := cmp.Diff(got, args); diff != "" {
		t.Errorf("argv (-got +want):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "pwned")); err == nil {
		t.Error("an argument was run by a shell")
	}
}

func TestRunEnvIsExactlyTheRunnersEnv(t *testing.T) {
	t.Setenv("CMDRUN_HOST_ONLY", "leak")
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{"nil is empty, not the host's", nil, []string{}},
		{"given", []string{"A=1", "PATH=/nowhere"}, []string{"A=1", "PATH=/nowhere"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := helper(t)
			r.Env = tt.env
			out, err := r.Run(t.Context(), helperArg, "env")
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var got []string
			if err := json.Unmarshal(out.Stdout, &got); err != nil {
				t.Fatalf("helper output %q: %v", out.Stdout, err)
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("child environment (-got +want):\n%s", diff)
			}
		})
	}
}

// recognizeNoServer is a Recognize that knows one message.
func recognizeNoServer(_, stderr []byte) string {
	if strings.Contains(string(stderr), "no server running") {
		return "no_server"
	}
	return ""
}

func TestRunClassifiesExits(t *testing.T) {
	type result struct {
		Kind   adapter.Kind
		Exit   int
		Code   string
		Detail string
		Stdout string
		Stderr string
		Total  int64
	}
	tests := []struct {
		name string
		args []string
		want result
	}{
		{
			name: "recognised message",
			args: []string{"exit", "1", "", "no server running on /tmp/s\n"},
			want: result{Kind: adapter.KindProtocolRejected, Exit: 1, Code: "no_server", Detail: "exit 1: no_server",
				Stderr: "no server running on /tmp/s\n", Total: 28},
		},
		{
			name: "no output",
			args: []string{"exit", "3", "", ""},
			want: result{Kind: adapter.KindProtocolRejected, Exit: 3, Detail: "exit 3: no output"},
		},
		{
			name: "unrecognised output is counted, not quoted",
			args: []string{"exit", "2", "secret", "prompt text"},
			want: result{Kind: adapter.KindProtocolRejected, Exit: 2, Detail: "exit 2: unrecognised output (17 bytes)",
				Stdout: "secret", Stderr: "prompt text", Total: 17},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := helper(t)
			r.Recognize = recognizeNoServer
			out, err := r.Run(t.Context(), append([]string{helperArg}, tt.args...)...)
			var e *cmdrun.Error
			if !errors.As(err, &e) {
				t.Fatalf("Run = %v; want a *cmdrun.Error", err)
			}
			got := result{e.Kind, e.Exit, e.Code, e.Detail(), string(e.Stdout), string(e.Stderr), e.Total}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("error (-got +want):\n%s", diff)
			}
			if diff := cmp.Diff(out, e.Output); diff != "" {
				t.Errorf("returned output differs from the error's (-got +want):\n%s", diff)
			}
			if strings.Contains(e.Error(), "secret") || strings.Contains(e.Error(), "prompt") {
				t.Errorf("Error() %q quotes the child's output", e.Error())
			}
		})
	}
}

func TestRunSpawnFailures(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want string // in Detail
	}{
		{"relative path is refused", "tmux", "not absolute"},
		{"missing", filepath.Join(dir, "missing"), "no such file"},
		{"not executable", plain, "permission denied"},
		{"a directory", dir, "permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &cmdrun.Runner{Path: tt.path}
			out, err := r.Run(t.Context(), "x")
			var e *cmdrun.Error
			if !errors.As(err, &e) {
				t.Fatalf("Run = %v; want a *cmdrun.Error", err)
			}
			if e.Kind != adapter.KindSpawnFailed || e.Exit != -1 {
				t.Errorf("Kind, Exit = %s, %d; want %s, -1", e.Kind, e.Exit, adapter.KindSpawnFailed)
			}
			if !strings.Contains(e.Detail(), tt.want) || !strings.HasPrefix(e.Detail(), "could not start: ") {
				t.Errorf("Detail = %q; want \"could not start: …%s…\"", e.Detail(), tt.want)
			}
			if out.Total != 0 {
				t.Errorf("Output.Total = %d; want 0", out.Total)
			}
		})
	}
}

func TestRunBoundsOutput(t *testing.T) {
	r := helper(t)
	r.MaxOutput = 1000
	const n = 1 << 20
	out, err := r.Run(t.Context(), helperArg, "spew", "1048576")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := strings.Repeat("x", 1000)
	if string(out.Stdout) != want || string(out.Stderr) != want {
		t.Errorf("kept %d and %d bytes; want the first 1000 of each", len(out.Stdout), len(out.Stderr))
	}
	if out.Total != 2*n {
		t.Errorf("Total = %d; want %d", out.Total, 2*n)
	}
}

func TestRunDoesNotStartWithDoneContext(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := helper(t).Run(ctx, helperArg, "touch", marker)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v; want an error wrapping %v", err, context.Canceled)
	}
	var e *cmdrun.Error
	if errors.As(err, &e) {
		t.Errorf("Run = %v; want no *cmdrun.Error for the caller's own cancellation", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the program ran")
	}
}

func TestRunKillsAtDeadline(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	r := helper(t)
	r.Timeout = 300 * time.Millisecond
	r.WaitDelay = 100 * time.Millisecond
	start := time.Now()
	_, err := r.Run(t.Context(), helperArg, "hang", pidfile)
	took := time.Since(start)
	var e *cmdrun.Error
	if !errors.As(err, &e) {
		t.Fatalf("Run = %v; want a *cmdrun.Error", err)
	}
	if e.Kind != adapter.KindTimeout || e.Exit != -1 || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Kind, Exit, Err = %s, %d, %v; want timeout, -1, %v", e.Kind, e.Exit, e.Err, context.DeadlineExceeded)
	}
	if got, want := e.Detail(), "killed at the 300ms deadline"; got != want {
		t.Errorf("Detail = %q; want %q", got, want)
	}
	// The helper ignores SIGTERM and would sleep an hour: only a kill at
	// the deadline brings Run back this soon.
	if limit := 10 * time.Second; took > limit {
		t.Errorf("Run took %v; want it back soon after its 300ms deadline (limit %v)", took, limit)
	}
	// Run has waited for the child: under load it may have been killed
	// before it wrote its pid (then nothing of it is left to check);
	// otherwise the pid it wrote must be dead.
	b, err := os.ReadFile(pidfile)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	eventually(t, "the hung child to be dead", func() bool { return !proc.Alive(pid) })
}

func TestRunCallerCancelKillsChild(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := helper(t).Run(ctx, helperArg, "hang", pidfile)
		done <- err
	}()
	pid := readPid(t, pidfile)
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v; want an error wrapping %v", err, context.Canceled)
	}
	var e *cmdrun.Error
	if errors.As(err, &e) {
		t.Errorf("Run = %v; want no *cmdrun.Error for the caller's own cancellation", err)
	}
	eventually(t, "the cancelled child to be dead", func() bool { return !proc.Alive(pid) })
}

func TestRunRelativePathNeverSearched(t *testing.T) {
	// A program named like the helper in the working directory is not run.
	r := &cmdrun.Runner{Path: "." + string(filepath.Separator) + "x"}
	_, err := r.Run(t.Context())
	var e *cmdrun.Error
	if !errors.As(err, &e) || e.Kind != adapter.KindSpawnFailed {
		t.Errorf("Run = %v; want spawn_failed", err)
	}
}
