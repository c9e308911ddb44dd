package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage:
  panestate hook <agent>                 run as the agent's hook: read one event on stdin
  panestate hook --print-config <agent>  print the hook configuration to paste
  panestate install <agent>              add that configuration to the agent's settings file
  panestate events [-v] [--app=NAME]     play the JSON-lines events protocol from stdin
  panestate doctor [flags]               say why a pane shows nothing (--app defaults to panestate)
agents: claude-code, codex, gemini
`

// bridgeCommand is the hidden command a hook starts the bridge with.
const bridgeCommand = "__bridge"

// appName names the settings folder (~/.panestate/agent) and the Herdr
// source (custom:panestate).
const appName = "panestate"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		// A write to a stderr the agent no longer reads must not end the
		// hook with SIGPIPE, a status other than 0: with the signal
		// ignored, the write fails and the hook goes on.
		signal.Ignore(syscall.SIGPIPE)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}

// run is the whole program with its inputs and outputs as parameters. It
// returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "hook":
		return runHook(args[1:], stdin, stdout, stderr, env)
	case bridgeCommand:
		return runBridge(args[1:], env)
	case "install":
		return runInstall(args[1:], stdout, stderr, env)
	case "events":
		return runEvents(args[1:], stdin, stdout, stderr, env)
	case "doctor":
		return runDoctor(args[1:], stdout, stderr, env)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "panestate: unknown command %q\n%s", args[0], usage)
	return 2
}
