//go:build unix

package registry

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// signalHostEnv makes the test binary a small host that uses
// DetachOnSignal; its value is the mode.
const signalHostEnv = "PANESTATE_TEST_SIGNAL_HOST"

// printingAdapter tells the parent test what happens, one line per event.
type printingAdapter struct{ slowRelease bool }

func (printingAdapter) Report(context.Context, adapter.Report) error { return nil }

func (a printingAdapter) Release(ctx context.Context) error {
	fmt.Println("releasing")
	if a.slowRelease {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	fmt.Println("released")
	return nil
}

func (printingAdapter) Close(context.Context) error { fmt.Println("closed"); return nil }

// runSignalHost is the host's main: attach, DetachOnSignal, then run until
// stdin ends, and detach on the way out, as a host does.
func runSignalHost(mode string) int {
	if mode == "ignored" {
		// Start again with SIGINT ignored, as a shell starts `cmd &`.
		signal.Ignore(syscall.SIGINT)
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, signalHostEnv+"=") {
				env = append(env, kv)
			}
		}
		env = append(env, signalHostEnv+"=plain")
		if err := syscall.Exec("/proc/self/exe", os.Args, env); err != nil {
			exe, _ := os.Executable()
			_ = syscall.Exec(exe, os.Args, env)
		}
		return 3
	}
	home, err := os.MkdirTemp("", "signalhost")
	if err != nil {
		return 3
	}
	defer os.RemoveAll(home)
	a := printingAdapter{slowRelease: mode == "slow"}
	reg, err := New(Options{App: "sig", Host: tuiHost, Env: []string{"HOME=" + home}, StaticSettings: true,
		Drivers: map[string]adapter.Driver{"print": adapter.DriverFunc(func(context.Context, adapter.Params) (adapter.Adapter, error) { return a, nil })}})
	if err != nil {
		fmt.Println(err)
		return 3
	}
	if err := reg.Attach(context.Background(), session.NewStore()); err != nil {
		fmt.Println(err)
		return 3
	}
	defer reg.Detach(context.Background())
	defer reg.DetachOnSignal()()
	fmt.Printf("ready sigint-ignored=%t\n", signal.Ignored(syscall.SIGINT))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

func TestDetachOnSignal(t *testing.T) {
	tests := []struct {
		name    string
		mode    string
		send    []syscall.Signal
		endMain string // close stdin (main returns) once this line is printed
		want    syscall.Signal
		lines   []string
	}{
		{name: "SIGTERM releases, then ends the process by SIGTERM", mode: "plain",
			send: []syscall.Signal{syscall.SIGTERM}, want: syscall.SIGTERM,
			lines: []string{"ready sigint-ignored=false", "releasing", "released", "closed"}},
		{name: "SIGINT releases, then ends the process by SIGINT", mode: "plain",
			send: []syscall.Signal{syscall.SIGINT}, want: syscall.SIGINT,
			lines: []string{"ready sigint-ignored=false", "releasing", "released", "closed"}},
		{name: "main returning during the signal's Detach keeps the signal's status", mode: "slow",
			send: []syscall.Signal{syscall.SIGTERM}, endMain: "releasing", want: syscall.SIGTERM,
			lines: []string{"ready sigint-ignored=false", "releasing", "released", "closed"}},
		{name: "SIGINT ignored at start stays ignored", mode: "ignored",
			send: []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, want: syscall.SIGTERM,
			lines: []string{"ready sigint-ignored=true", "releasing", "released", "closed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), signalHostEnv+"="+tt.mode)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			sc := bufio.NewScanner(stdout)
			var lines []string
			readLine := func() bool {
				if !sc.Scan() {
					return false
				}
				lines = append(lines, sc.Text())
				if tt.endMain != "" && sc.Text() == tt.endMain {
					stdin.Close()
				}
				return true
			}
			if !readLine() || !strings.HasPrefix(lines[0], "ready") {
				t.Fatalf("the host did not start: %q", lines)
			}
			for _, s := range tt.send {
				if err := cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
			}
			for readLine() {
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("the host exited with %v, want it ended by %v", err, tt.want)
			}
			ws := ee.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != tt.want {
				t.Errorf("the host ended with %v, want ended by %v", ws, tt.want)
			}
			if strings.Join(lines, "\n") != strings.Join(tt.lines, "\n") {
				t.Errorf("host printed %q, want %q", lines, tt.lines)
			}
		})
	}
}

func TestDetachOnSignalStopWithoutSignal(t *testing.T) {
	r := mustNew(t, testOptions(t))
	stop := r.DetachOnSignal()
	stop()
	stop()
}
