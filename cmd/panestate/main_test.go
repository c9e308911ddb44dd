package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
	"github.com/panestate/panestate/internal/testenv"
)

// standInEnv makes the test binary a stand-in agent (see standIn).
const standInEnv = "PANESTATE_TEST_STANDIN"

func TestMain(m *testing.M) {
	// The test binary is also the emulated herdr CLI ...
	herdrtest.Main()
	// ... and the stand-in agent that runs the hooks.
	if bin := os.Getenv(standInEnv); bin != "" {
		if os.Getenv(standInTTYEnv) != "" {
			// On a terminal: its orders on fd 3, its answers on fd 4, its
			// hooks in sessions of their own, without a terminal.
			os.Exit(standIn(bin, os.Args[1], os.NewFile(3, "orders"), os.NewFile(4, "answers"), true))
		}
		agent := os.Getenv(standInAgentEnv) // a stand-in whose arguments are another program's
		if agent == "" {
			agent = os.Args[1]
		}
		os.Exit(standIn(bin, agent, os.Stdin, os.Stdout, false))
	}
	testenv.ClearHerdr()
	code := m.Run()
	removeBuild()
	if code == 0 {
		goleak.VerifyTestMain(exitOnly{})
	}
	os.Exit(code)
}

// marker is in every private field of the fixtures (prompts, tool inputs,
// messages, transcript paths, working directories).
const marker = "SECRET-MARKER"

// fixture is the path of a documented payload.
func fixture(agent, name string) string {
	p, _ := filepath.Abs(filepath.Join("..", "..", "internal", "hook", "testdata", agent, name+".json"))
	return p
}

// exitOnly lets goleak check after the tests ran, with the build removed.
type exitOnly struct{}

func (exitOnly) Run() int { return 0 }

// standInAgentEnv names the agent of a stand-in started with arguments
// of its own (see startNamed).
const standInAgentEnv = "PANESTATE_TEST_STANDIN_AGENT"

// standInTTYEnv makes the stand-in agent one that runs on a terminal (see
// startAgentTTY).
const standInTTYEnv = "PANESTATE_TEST_STANDIN_TTY"

// standIn is a stand-in agent: for each line on in (a payload file) it runs
// its hook command through sh, as agents do, with the payload on stdin,
// waits for it, and says "ran" on out. With setsid, each hook runs in a
// session of its own, without a controlling terminal, as Claude Code runs
// them.
func standIn(bin, agent string, in io.Reader, out io.Writer, setsid bool) int {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		payload, err := os.Open(sc.Text())
		if err != nil {
			fmt.Fprintln(out, "error:", err)
			continue
		}
		cmd := exec.Command("/bin/sh", "-c", shellQuote(bin)+" hook "+agent)
		cmd.Stdin = payload
		if setsid {
			newSession(cmd)
		}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		payload.Close()
		switch {
		case err != nil:
			fmt.Fprintln(out, "error:", err)
		case stdout.Len() > 0:
			fmt.Fprintf(out, "error: hook wrote %q to stdout\n", stdout.String())
		default:
			fmt.Fprintln(out, "ran")
		}
	}
	return 0
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
