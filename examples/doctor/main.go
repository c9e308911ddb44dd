// Command doctor answers "why does my pane show nothing?". It prints what
// panestate's registry would do for a chat session started here, with these
// settings: for every adapter, whether it is enabled and by which settings
// file, whether it applies and if not why (which variable is missing, which
// host condition fails, which loaded reporter it defers to).
//
// It ends with a verdict: the adapters that would report, or none.
//
// It never attaches, so it never claims or releases a pane: the registry's
// Explain, called before Attach, reads the settings once and asks each
// adapter whether it would apply, without opening anything.
//
// # Running it
//
//	go run ./examples/doctor                       # would a tui root session of "chat" report here?
//	go run ./examples/doctor --app atomic --trust-project
//	go run ./examples/doctor --mode print          # ... and a print run?
//	go run ./examples/doctor --json | jq .explanation.adapters
//
// # Flags
//
// The host flags are those of the chat example, so that the same flags ask
// about the same session:
//
//	--app NAME               application name (default chat)
//	--project DIR            project root (default: the working directory)
//	--trust-project          apply the project's settings file
//	--mode tui|print|json|rpc  (default tui)
//	--no-ui                  the host has no UI
//	--role root|subagent|workflow-stage  (default root)
//	--loaded-extension PATH  an extension the host loaded (repeatable)
//
// and:
//
//	--json     print one JSON object: {"explanation": ..., "would_report":
//	           [...], "herdr_probe": ...} (the explanation is
//	           registry.Explanation's JSON)
//	--probe    look at the Herdr installation (default: on inside Herdr,
//	           that is when HERDR_ENV=1)
//
// # The Herdr probe
//
// Inside Herdr the doctor also lists the HERDR_* variables present (with the
// values of those the reporter reads), says whether HERDR_BIN_PATH is an
// executable file, and runs `herdr --version` and `herdr status --json`
// through it, with a 2 s deadline each. It runs nothing else: it never
// reports or releases.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/examples/internal/hostflags"
	"github.com/panestate/panestate/registry"
)

// probeTimeout bounds each herdr command the probe runs.
const probeTimeout = 2 * time.Second

// maxOutput bounds what is kept of a probed command's output.
const maxOutput = 64 << 10

// shownVariables are the HERDR_* variables whose values the probe prints:
// the ones the Herdr reporter reads. Others are only said to be set.
var shownVariables = []string{"HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID", "HERDR_SOCKET_PATH"}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Environ()))
}

// run is the whole program, with its inputs and outputs as parameters so
// that tests can run it in-process. env is the environment to explain. It
// returns the exit status: 0, or 2 for bad flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, env []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := hostflags.Register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	probe := fs.Bool("probe", adapter.Env(env).Get("HERDR_ENV") == "1",
		"look at the Herdr installation: variables, binary, version and status (default: on inside Herdr)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "doctor: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	opts, err := host.Options(env, nil)
	if err != nil {
		fmt.Fprintf(stderr, "doctor: %v\n", err)
		return 2
	}
	reg, err := registry.New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "doctor: %v\n", err)
		return 2
	}

	// Explain before Attach: nothing is opened, nothing is claimed.
	report := struct {
		Explanation registry.Explanation `json:"explanation"`
		WouldReport []string             `json:"would_report"`
		Probe       *herdrProbe          `json:"herdr_probe,omitempty"`
	}{Explanation: reg.Explain(), WouldReport: []string{}}
	// Before Attach, an adapter that is enabled and applies here is "not
	// attached" (yet); every other state says why it would not run.
	for _, a := range report.Explanation.Adapters {
		if a.Enabled && a.Lifecycle == registry.LifecycleNotAttached {
			report.WouldReport = append(report.WouldReport, a.Name)
		}
	}
	if *probe {
		report.Probe = probeHerdr(ctx, env)
	}

	if *asJSON {
		out, err := json.MarshalIndent(report, "", "  ")
		if err != nil { // plain data: cannot happen
			fmt.Fprintf(stderr, "doctor: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", out)
		return 0
	}
	fmt.Fprint(stdout, report.Explanation.String())
	verdict := "nowhere (see why above)"
	if len(report.WouldReport) > 0 {
		verdict = "to " + strings.Join(report.WouldReport, ", ")
	}
	fmt.Fprintf(stdout, "\nverdict: this %s session would report %s\n", host.App, verdict)
	if report.Probe != nil {
		fmt.Fprintf(stdout, "\n%s", report.Probe)
	}
	return 0
}

// herdrProbe is what the doctor found out about the Herdr installation.
type herdrProbe struct {
	// Variables maps each HERDR_* variable present to its value, or to
	// "(set)" for those whose value is not shown.
	Variables map[string]string `json:"variables"`
	// BinProblem says why HERDR_BIN_PATH cannot be run; empty when it can.
	BinProblem string `json:"bin_problem,omitempty"`
	// Version and Status are the outputs of `herdr --version` and `herdr
	// status --json`; VersionError and StatusError say why one is missing.
	Version      string          `json:"version,omitempty"`
	VersionError string          `json:"version_error,omitempty"`
	Status       json.RawMessage `json:"status,omitempty"`
	StatusError  string          `json:"status_error,omitempty"`
}

// probeHerdr looks at the Herdr installation env points to. It runs only
// read-only commands.
func probeHerdr(ctx context.Context, env []string) *herdrProbe {
	p := &herdrProbe{Variables: map[string]string{}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "HERDR_") {
			continue
		}
		if slices.Contains(shownVariables, k) {
			p.Variables[k] = v
		} else {
			p.Variables[k] = "(set)"
		}
	}
	bin := adapter.Env(env).Get("HERDR_BIN_PATH")
	if p.BinProblem = checkExecutable(bin); p.BinProblem != "" {
		return p
	}
	out, err := herdr(ctx, env, bin, "--version")
	if err != nil {
		p.VersionError = err.Error()
	} else {
		p.Version = strings.TrimSpace(out)
	}
	out, err = herdr(ctx, env, bin, "status", "--json")
	switch {
	case err != nil:
		p.StatusError = err.Error()
	case !json.Valid([]byte(out)):
		p.StatusError = fmt.Sprintf("not JSON (%d bytes)", len(out))
	default:
		p.Status = json.RawMessage(strings.TrimSpace(out))
	}
	return p
}

// checkExecutable says why path is not an executable file, or "".
func checkExecutable(path string) string {
	if path == "" {
		return "HERDR_BIN_PATH is not set"
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err.Error()
	case !fi.Mode().IsRegular():
		return path + " is not a regular file"
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return path + " is not executable"
	}
	return ""
}

// herdr runs the Herdr binary with args (an argument vector, never a
// shell) and returns its standard output.
func herdr(ctx context.Context, env []string, bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.WaitDelay = probeTimeout / 4 // do not wait for a child holding the pipes
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if first, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); first != "" {
			return "", fmt.Errorf("herdr %s: %w: %s", strings.Join(args, " "), err, adapter.Bound(first, 200))
		}
		return "", fmt.Errorf("herdr %s: %w", strings.Join(args, " "), err)
	}
	return stdout.String(), nil
}

// capped keeps the first maxOutput bytes written to it.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// String renders the probe for people.
func (p *herdrProbe) String() string {
	var b strings.Builder
	b.WriteString("herdr probe (read-only: --version and status --json):\n")
	if len(p.Variables) == 0 {
		b.WriteString("  no HERDR_* variable is set: this is not a Herdr pane\n")
	}
	for _, k := range slices.Sorted(maps.Keys(p.Variables)) {
		fmt.Fprintf(&b, "  %s=%q\n", k, p.Variables[k])
	}
	if p.BinProblem != "" {
		fmt.Fprintf(&b, "  binary: %s\n", p.BinProblem)
		return b.String()
	}
	b.WriteString("  binary: executable\n")
	line := func(what, out, err string) {
		if err != "" {
			out = "failed: " + err
		}
		fmt.Fprintf(&b, "  %s: %s\n", what, out)
	}
	line("herdr --version", p.Version, p.VersionError)
	line("herdr status --json", string(p.Status), p.StatusError)
	return b.String()
}
