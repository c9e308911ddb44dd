package cmdrun_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/internal/cmdrun"
	"github.com/panestate/panestate/internal/testenv"
)

// helperArg, as the test binary's first argument, makes it act as the
// program under test instead of running the tests (os/exec's own tests do
// the same): `cmdrun.test cmdrun-helper <mode> <args...>`.
const helperArg = "cmdrun-helper"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == helperArg {
		// syscall.Exit, not os.Exit: a binary built with -race sleeps a
		// second in os.Exit(0) (GORACE atexit_sleep_ms), which made every
		// call of the fake program take a second.
		syscall.Exit(helperMain(os.Args[2], os.Args[3:]))
	}
	testenv.ClearHerdr()
	testenv.ClearTmux()
	goleak.VerifyTestMain(m)
}

// helperMain is the fake program. Modes:
//
//	args ARGS...             print ARGS as a JSON array
//	env                      print the environment as a JSON array
//	exit CODE OUT ERR        write OUT to stdout and ERR to stderr, exit CODE
//	spew N                   write N bytes to stdout and N to stderr
//	hang PIDFILE             write the pid to PIDFILE, ignore SIGTERM, sleep
//	grandchild PIDFILE       start `hang PIDFILE` sharing stdout, exit 0
//	host PIDFILE             run `hang PIDFILE` through a cmdrun.Runner
//	touch FILE               create FILE
//	await FIFO               read FIFO to its end, exit 0
func helperMain(mode string, args []string) int {
	switch mode {
	case "args":
		b, _ := json.Marshal(args)
		os.Stdout.Write(b)
	case "env":
		env := os.Environ()
		if env == nil {
			env = []string{}
		}
		b, _ := json.Marshal(env)
		os.Stdout.Write(b)
	case "exit":
		code, _ := strconv.Atoi(args[0])
		os.Stdout.WriteString(args[1])
		os.Stderr.WriteString(args[2])
		return code
	case "spew":
		n, _ := strconv.Atoi(args[0])
		b := []byte(strings.Repeat("x", n))
		os.Stdout.Write(b)
		os.Stderr.Write(b)
	case "hang":
		signal.Ignore(syscall.SIGTERM)
		if err := writePid(args[0], os.Getpid()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		time.Sleep(time.Hour) // a hung program, killed by the test's runner
	case "grandchild":
		cmd := exec.Command(os.Args[0], helperArg, "hang", args[0])
		cmd.Stdout = os.Stdout // holds the parent's pipe open
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "host":
		r := &cmdrun.Runner{Path: os.Args[0], Timeout: time.Minute}
		_, err := r.Run(context.Background(), helperArg, "hang", args[0])
		fmt.Fprintln(os.Stderr, err)
		return 1
	case "await":
		b, err := os.ReadFile(args[0])
		if err != nil || len(b) != 0 {
			return 1
		}
	case "touch":
		if err := os.WriteFile(args[0], nil, 0o600); err != nil {
			return 1
		}
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 2
	}
	return 0
}

// writePid writes pid to path atomically, so a reader never sees half.
func writePid(path string, pid int) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// readPid waits for the helper at path to have written its pid. The helper
// is a separate process, so this polls; it is bounded.
func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	eventually(t, "the helper's pid file", func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(string(b))
		return err == nil
	})
	return pid
}

// eventually polls cond until it holds or 10 s pass; it is for events in
// other processes (one writing a file, one dying), never for this package's
// own state.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// helper returns a Runner for the test binary acting as the fake program.
func helper(t *testing.T) *cmdrun.Runner {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, err = filepath.Abs(exe)
	if err != nil {
		t.Fatal(err)
	}
	return &cmdrun.Runner{Path: exe}
}
